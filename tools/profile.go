package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// profile_column reads above profileSampleAbove rows (by the catalog's
// estimate), or of a table of unknown size, only the first
// profileSampleRows the engine returns, and says so; profileTop is how many common values it lists, each cut to
// maxProfileValue bytes.
const (
	profileSampleAbove = 1_000_000
	profileSampleRows  = 100_000
	profileTop         = 10
	maxProfileValue    = 100
)

// ColumnProfile is profile_column's result: what the values of a column
// look like, so that the model filters on a literal that exists.
type ColumnProfile struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Rows counts the rows read: all of them, or the sample.
	Rows int64 `json:"rows_read"`
	// Sample says how the rows were sampled; "" when all were read.
	Sample       string       `json:"sample,omitempty"`
	Distinct     int64        `json:"distinct"`
	Nulls        int64        `json:"nulls"`
	NullFraction float64      `json:"null_fraction"`
	Min          any          `json:"min,omitempty"`
	Max          any          `json:"max,omitempty"`
	Top          []ValueCount `json:"most_common"`
	// Note says what could not be read, such as min and max of a type
	// that has no order.
	Note    string `json:"note,omitempty"`
	summary string
}

// ValueCount is a value and how many rows hold it.
type ValueCount struct {
	Value any   `json:"value"`
	Count int64 `json:"count"`
}

// Summary says what the profile found, in one line for the editor.
func (p *ColumnProfile) Summary() string { return p.summary }

// NotFound is the result of a tool asked about a table or column that
// does not exist: what the model reads, with the closest names.
type NotFound struct {
	Message string `json:"not_found"`
}

// Summary is the message, for the editor.
func (n *NotFound) Summary() string { return n.Message }

// profileColumn profiles one column with two read-only statements under
// the statement timeout: the counts, min and max, and the most common
// values.
func (s *Set) profileColumn(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Table  string `json:"table"`
		Column string `json:"column"`
	}
	if err := decodeArgs(ToolProfileColumn, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Table) == "" || strings.TrimSpace(a.Column) == "" {
		return nil, errors.New("profile_column needs the table and column arguments")
	}
	schema, tables, missing, err := s.findTables(ctx, []string{a.Table})
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return &NotFound{Message: schema.NoTable(a.Table)}, nil
	}
	t := tables[0]
	col := t.Column(strings.TrimSpace(a.Column))
	if col == nil {
		col = t.ColumnFold(engine.UnquoteIdent(strings.TrimSpace(a.Column)))
	}
	if col == nil {
		return &NotFound{Message: schema.NoColumn(t, a.Column)}, nil
	}
	p := &ColumnProfile{Table: schema.TableName(t), Column: col.Name}
	c := schema.Ident(col.Name)
	from := schema.TableName(t)
	// A table whose size the catalog does not know (never analysed, or a
	// count that stopped) may be huge: it is sampled too, and said so
	// when the sample was full.
	large, unknown := t.Rows > profileSampleAbove, t.Rows < 0 || t.RowsAtLeast
	if large || unknown {
		from = fmt.Sprintf("(SELECT %s FROM %s LIMIT %d) AS sample", c, from, profileSampleRows)
	}
	if large {
		p.Sample = fmt.Sprintf("the first %d rows read of about %s, not a random sample", profileSampleRows, strings.TrimPrefix(engine.FormatRows(t.Rows, false), "~"))
	}
	stats := s.db.Run(ctx, fmt.Sprintf("SELECT count(*), count(%[1]s), count(DISTINCT %[1]s), min(%[1]s), max(%[1]s) FROM %[2]s", c, from), false)
	if stats.Status != engine.StatusSuccess && ctx.Err() == nil {
		// A type without an order (json, bool on PostgreSQL): no min and max.
		p.Note = "min and max not read: " + stats.Error
		stats = s.db.Run(ctx, fmt.Sprintf("SELECT count(*), count(%[1]s), count(DISTINCT %[1]s), NULL, NULL FROM %[2]s", c, from), false)
	}
	if stats.Status != engine.StatusSuccess || len(stats.Rows) != 1 {
		return nil, fmt.Errorf("profile_column %s.%s: %s", p.Table, col.Name, stats.Error)
	}
	row := stats.Rows[0]
	p.Rows, p.Distinct = count(row[0]), count(row[2])
	if unknown && !large && p.Rows >= profileSampleRows {
		p.Sample = fmt.Sprintf("the first %d rows read of a table whose size the catalog does not know, not a random sample", profileSampleRows)
	}
	p.Nulls = p.Rows - count(row[1])
	if p.Rows > 0 {
		p.NullFraction = math.Round(float64(p.Nulls)/float64(p.Rows)*1000) / 1000
	}
	p.Min, p.Max = cutValue(row[3]), cutValue(row[4])
	top := s.db.Run(ctx, fmt.Sprintf("SELECT %[1]s, count(*) AS n FROM %[2]s GROUP BY %[1]s ORDER BY n DESC LIMIT %[3]d", c, from, profileTop), false)
	if top.Status != engine.StatusSuccess {
		return nil, fmt.Errorf("profile_column %s.%s: %s", p.Table, col.Name, top.Error)
	}
	p.Top = []ValueCount{}
	for _, r := range top.Rows {
		p.Top = append(p.Top, ValueCount{Value: cutValue(r[0]), Count: count(r[1])})
	}
	p.summary = profileSummary(p)
	maskProfile(s.mask, p)
	return p, nil
}

// count reads a count of a result row.
func count(v any) int64 {
	f, _ := toFloat(v)
	return int64(f)
}

// cutValue shortens a long text value: the model needs its start to
// recognise it, not all of it.
func cutValue(v any) any {
	if s, ok := v.(string); ok && len(s) > maxProfileValue {
		return engine.CutText(s, maxProfileValue)
	}
	return v
}

// profileSummary is the profile in one line: "orders.status: 3 distinct,
// 0% null, most common 'paid' (1204)".
func profileSummary(p *ColumnProfile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s: %d distinct, %s null", p.Table, p.Column, p.Distinct, strconv.FormatFloat(p.NullFraction*100, 'f', -1, 64)+"%")
	if len(p.Top) > 0 {
		fmt.Fprintf(&b, ", most common %s (%d)", engine.CutText(valueText(p.Top[0].Value), 40), p.Top[0].Count)
	}
	if p.Sample != "" {
		fmt.Fprintf(&b, ", sampled %d rows", p.Rows)
	}
	return b.String()
}

// valueText writes a value as SQL would: text quoted, NULL bare.
func valueText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return fmt.Sprint(v)
}
