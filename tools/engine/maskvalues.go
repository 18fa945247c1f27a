package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
)

// maxScrubValues bounds the distinct values of a source's masked columns
// that its scrubber looks for, over all its masked columns: about 60 MB of
// automaton at the bound (guard/scrub's BenchmarkNew100k), built once per
// schema read.
const maxScrubValues = 100_000

// scrubReadTimeout bounds reading those values, all columns together: a
// column whose values are not read by then is left to the statement rule.
const scrubReadTimeout = 10 * time.Second

// MaskedValue is a distinct value of a column the source masks, for the
// scrubber: Text as text reads it, Raw as a result's row holds it.
type MaskedValue struct {
	Column string
	Text   string
	Raw    any
}

// scrubValues is what DB keeps of its masked columns' values: what the
// caller built of them.
type scrubValues struct {
	gen   int // the schemaGen it was read under
	read  bool
	built any
}

// MaskedValues returns build of the distinct values of the columns the
// source masks, read and built once per schema read (RefreshSchema reads
// them again), bounded in count and time; nil when the source masks
// nothing. The trust layer builds its scrubber of them; the DB only keeps
// it, so that the sessions on one source share it.
func (db *DB) MaskedValues(ctx context.Context, build func([]MaskedValue) any) any {
	if len(db.src.Mask) == 0 && len(db.src.MaskPattern) == 0 {
		return nil
	}
	db.valuesMu.Lock() // one read at a time; the others wait for it
	defer db.valuesMu.Unlock()
	db.mu.Lock()
	gen := db.schemaGen
	db.mu.Unlock()
	if db.values.read && db.values.gen == gen {
		return db.values.built
	}
	// The read is the server's, not the turn's: no first page for the
	// editor, no bound tokens, and it stops when the turn does.
	readCtx, cancel := context.WithTimeout(context.Background(), scrubReadTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	values := db.readMaskedValues(readCtx)
	db.values = scrubValues{gen: gen, read: ctx.Err() == nil, built: build(values)}
	return db.values.built
}

// readMaskedValues reads the distinct values of each column that the
// source's mask or mask_pattern names, up to maxScrubValues in all.
func (db *DB) readMaskedValues(ctx context.Context) []MaskedValue {
	schema, err := db.Schema(ctx)
	if err != nil {
		return nil
	}
	var out []MaskedValue
	for _, c := range maskedSourceColumns(schema, db.src) {
		left := maxScrubValues - len(out)
		if left <= 0 || ctx.Err() != nil {
			break
		}
		sink := &valueSink{column: c.column, max: left}
		q := fmt.Sprintf("SELECT DISTINCT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL LIMIT %[3]d",
			schema.Ident(c.column), schema.TableName(c.table), left)
		db.Execute(WithRowSink(ctx, sink), q, false)
		out = append(out, sink.values...)
	}
	return out
}

type maskedColumn struct {
	table  *Table
	column string
}

// maskedSourceColumns returns the columns of schema that src masks: those
// its mask names as table.column (or schema.table.column), and those
// whose name matches a mask_pattern. Masking hides a masked name in every
// table; its values are read only from the columns the user named.
func maskedSourceColumns(schema *Schema, src sessionio.Source) []maskedColumn {
	var out []maskedColumn
	for i := range schema.Tables {
		t := &schema.Tables[i]
		for _, c := range t.Columns {
			if masksColumn(src, t, c.Name) {
				out = append(out, maskedColumn{table: t, column: c.Name})
			}
		}
	}
	return out
}

func masksColumn(src sessionio.Source, t *Table, column string) bool {
	col := strings.ToLower(column)
	for _, m := range src.Mask {
		dot := strings.LastIndexByte(m, '.')
		if dot < 0 || strings.ToLower(UnquoteIdent(m[dot+1:])) != col {
			continue
		}
		table := strings.ToLower(m[:dot])
		if table == strings.ToLower(t.Name) || table == strings.ToLower(t.QualifiedName()) ||
			strings.ToLower(UnquoteIdent(table)) == strings.ToLower(t.Name) {
			return true
		}
	}
	for _, p := range src.MaskPattern {
		if ok, _ := path.Match(strings.ToLower(p), col); ok {
			return true
		}
	}
	return false
}

// valueSink keeps the values of a one-column read.
type valueSink struct {
	column string
	max    int
	values []MaskedValue
}

func (s *valueSink) Columns([]string) {}

// errEnough stops a read that gave all the values wanted.
var errEnough = errors.New("enough values")

func (s *valueSink) Row(values []any) error {
	if len(values) != 1 || values[0] == nil {
		return nil
	}
	s.values = append(s.values, MaskedValue{Column: s.column, Text: scrubText(values[0]), Raw: values[0]})
	if len(s.values) >= s.max {
		return errEnough
	}
	return nil
}

// scrubText is a value as text reads it: a string as it is, anything else
// as its JSON (a number's digits).
func scrubText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	return string(data)
}
