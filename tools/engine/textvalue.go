package engine

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// TextKind says how the engine's text of a value reads as a JSON value.
type TextKind uint8

// The kinds of a TextCell.
const (
	// KindText is text, and any type without a kind of its own: dates,
	// times and timestamps as the server prints them, intervals, UUIDs,
	// arrays, network addresses, enums.
	KindText TextKind = iota
	// KindInt is an integer.
	KindInt
	// KindFloat8 is a double precision float, or NaN, Infinity.
	KindFloat8
	// KindFloat4 is a single precision float, or NaN, Infinity.
	KindFloat4
	// KindDecimal is an exact decimal (numeric), its scale kept.
	KindDecimal
	// KindBool is t or f.
	KindBool
	// KindJSON is a json or jsonb document.
	KindJSON
	// KindBytea is bytes in PostgreSQL's hex form (\x00ff).
	KindBytea
)

// TextCell is one value of a row in the engine's own text form, as
// PostgreSQL sends it in the text result format. Text is nil for NULL; it
// is the driver's buffer, valid only during the call that gets it.
type TextCell struct {
	Text []byte
	Kind TextKind
}

// Value returns the cell as the kept rows hold it: a string, a number
// (int64, float64, or json.Number for an exact decimal or a float4, so
// that 31.70 keeps its scale), a bool, nil, a json.RawMessage for a
// document; bytes as a string when UTF-8, else base64. The text of a
// float or decimal that is no JSON number (NaN, Infinity) stays a string.
func (c TextCell) Value() any {
	b := c.Text
	if b == nil {
		return nil
	}
	switch c.Kind {
	case KindInt:
		if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return n
		}
	case KindFloat8:
		if numberText(b) {
			if f, err := strconv.ParseFloat(string(b), 64); err == nil {
				return f
			}
		}
	case KindFloat4, KindDecimal:
		if numberText(b) {
			return json.Number(b)
		}
	case KindBool:
		return len(b) > 0 && b[0] == 't'
	case KindJSON:
		if json.Valid(b) {
			return json.RawMessage(strings.Clone(string(b)))
		}
	case KindBytea:
		return byteaText(b)
	}
	return string(b)
}

// numberText reports whether the text of a number is a JSON number, not
// NaN, Infinity or -Infinity: the server prints numbers in JSON's syntax.
func numberText(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	return len(b) > 0 && b[0] >= '0' && b[0] <= '9'
}

// byteaText reads a bytea in the hex form as a string when UTF-8, else
// base64; another form (bytea_output = escape) stays as the server's text.
func byteaText(b []byte) string {
	if len(b) < 2 || b[0] != '\\' || b[1] != 'x' {
		return string(b)
	}
	raw := make([]byte, hex.DecodedLen(len(b)-2))
	if _, err := hex.Decode(raw, b[2:]); err != nil {
		return string(b)
	}
	return JSONBytes(raw)
}

// cellValues returns the values of a row of cells.
func cellValues(cells []TextCell) []any {
	row := make([]any, len(cells))
	for i, c := range cells {
		row[i] = c.Value()
	}
	return row
}

// TextRowSink is a RowSink that also takes a row as the engine's text,
// which spares each value a conversion to a Go value and back to text.
// An engine that reads text (PostgreSQL) calls TextRow instead of Row for
// every row.
type TextRowSink interface {
	RowSink
	// TextRow gets one row. It must not keep the cells or their text.
	TextRow(cells []TextCell) error
}

// TextRow counts one row of text cells, keeps it as row does, and hands
// it to the sink: as text to a TextRowSink, else as values.
func (c *Collector) TextRow(cells []TextCell) error {
	values := func() ([]any, error) { return cellValues(cells), nil }
	ts, ok := c.sink.(TextRowSink)
	if !ok {
		return c.Row(values)
	}
	c.res.RowCount++
	if c.res.RowCount == 1 {
		c.res.FirstRow = time.Since(c.start)
	}
	if len(c.res.Rows) < c.max {
		c.res.Rows = append(c.res.Rows, cellValues(cells))
	} else {
		c.res.Truncated = true
	}
	return ts.TextRow(cells)
}

// NumericType reports whether a column of that type name (an engine's,
// any case: int4, numeric, float8, DECIMAL, BIGINT, INTEGER, REAL) holds
// numbers, which grids align to the right.
func NumericType(name string) bool {
	name, _, _ = strings.Cut(strings.ToLower(name), "(")
	switch strings.TrimSpace(name) {
	case "int2", "int4", "int8", "oid", "float4", "float8", "numeric", "money",
		"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "newdecimal",
		"float", "double", "real", "double precision", "year",
		"unsigned tinyint", "unsigned smallint", "unsigned mediumint", "unsigned int", "unsigned bigint":
		return true
	}
	return false
}

// EditorRows returns rows as the editor's view holds them: an exact
// decimal (json.Number) as a string, which a JSON reader in JavaScript
// would otherwise turn into a float (31.70 into 31.7); the column's type
// says that it is a number. It returns rows itself when none has one.
func EditorRows(rows [][]any) [][]any {
	var out [][]any
	for r, row := range rows {
		for i, v := range row {
			n, ok := v.(json.Number)
			if !ok {
				continue
			}
			if out == nil {
				out = make([][]any, len(rows))
				copy(out, rows[:r])
			}
			if out[r] == nil {
				out[r] = append([]any(nil), row...)
			}
			out[r][i] = string(n)
		}
		if out != nil && out[r] == nil {
			out[r] = row
		}
	}
	if out == nil {
		return rows
	}
	return out
}
