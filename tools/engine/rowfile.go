package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// The formats of a RowWriter.
const (
	FormatCSV      = "csv"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Formats lists the formats NewRowWriter writes.
var Formats = []string{FormatCSV, FormatJSON, FormatMarkdown}

// RowWriter writes a statement's rows to a file as they stream: a
// RowSink that also takes rows as text (TextRowSink), plus Close, which
// ends the file. Its first write error is kept and returned by the next
// Row and by Close.
type RowWriter interface {
	TextRowSink
	Close() error
}

// NewRowWriter writes rows to w in format: "csv" (RFC 4180, CRLF line
// ends, a header row, NULL as an empty field, text that a spreadsheet
// would run as a formula quoted with a leading '), "json" (an array of
// objects keyed by column, in column order) or "markdown" (a table).
func NewRowWriter(w io.Writer, format string) (RowWriter, error) {
	b := bufio.NewWriterSize(w, 64<<10)
	switch format {
	case FormatCSV:
		return &csvWriter{w: b}, nil
	case FormatJSON:
		return &jsonWriter{w: b}, nil
	case FormatMarkdown:
		return &markdownWriter{w: b}, nil
	}
	return nil, fmt.Errorf("unknown format %q; the formats are %s", format, strings.Join(Formats, ", "))
}

// csvWriter writes RFC 4180 CSV. encoding/csv would do, but takes each
// row as strings, which a million rows pay for in allocations.
type csvWriter struct {
	w    *bufio.Writer
	err  error
	cell []byte
}

func (c *csvWriter) Columns(names []string) {
	for i, n := range names {
		if i > 0 {
			c.w.WriteByte(',')
		}
		c.field(n, true)
	}
	_, c.err = c.w.WriteString("\r\n")
}

func (c *csvWriter) Row(values []any) error {
	if c.err != nil {
		return c.err
	}
	for i, v := range values {
		if i > 0 {
			c.w.WriteByte(',')
		}
		switch v := v.(type) {
		case nil:
		case string:
			c.field(v, true)
		default:
			var isText bool
			c.cell, isText = appendValue(c.cell[:0], v)
			c.fieldBytes(c.cell, isText)
		}
	}
	_, c.err = c.w.WriteString("\r\n")
	return c.err
}

// field writes a text value, guarded and quoted as needed.
func (c *csvWriter) field(s string, text bool) {
	guard := text && formulaStart(s)
	if !guard && !needsQuotes(s) {
		c.w.WriteString(s)
		return
	}
	c.w.WriteByte('"')
	if guard {
		c.w.WriteByte('\'')
	}
	c.w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	c.w.WriteByte('"')
}

func (c *csvWriter) fieldBytes(b []byte, text bool) {
	if !text && !needsQuotes(string(b)) {
		c.w.Write(b)
		return
	}
	c.field(string(b), text)
}

// formulaStart reports whether a spreadsheet would read s as a formula, as
// OWASP's CSV injection page lists: = + - @, a tab or a carriage return
// first.
func formulaStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// needsQuotes reports whether RFC 4180 needs s quoted; an empty text is
// quoted too, so that it differs from NULL.
func needsQuotes(s string) bool {
	return s == "" || strings.ContainsAny(s, ",\"\r\n") || s[0] == ' ' || s[len(s)-1] == ' '
}

func (c *csvWriter) Close() error {
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}

// appendValue appends a non-text value's text: numbers as written, bools
// as true or false, documents and arrays as JSON. isText says that the
// value is text all the same (a document, an array, a value of a type
// without a number's form) and so needs the formula guard.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case json.Number:
		return append(b, v...), false
	case int64:
		return strconv.AppendInt(b, v, 10), false
	case int:
		return strconv.AppendInt(b, int64(v), 10), false
	case int32:
		return strconv.AppendInt(b, int64(v), 10), false
	case int16:
		return strconv.AppendInt(b, int64(v), 10), false
	case int8:
		return strconv.AppendInt(b, int64(v), 10), false
	case uint64:
		return strconv.AppendUint(b, v, 10), false
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), false
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), false
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), false
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), false
	case float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64), false
	case float32:
		return strconv.AppendFloat(b, float64(v), 'g', -1, 32), false
	case *big.Int:
		return v.Append(b, 10), false
	case bool:
		return strconv.AppendBool(b, v), false
	case json.RawMessage:
		return append(b, v...), true
	}
	data, err := json.Marshal(v)
	if err != nil {
		return append(b, fmt.Sprint(v)...), true
	}
	return append(b, data...), true
}

// jsonWriter writes an array of objects, one a line.
type jsonWriter struct {
	w     *bufio.Writer
	keys  [][]byte
	rows  int64
	err   error
	value []byte
}

func (j *jsonWriter) Columns(names []string) {
	for _, n := range names {
		key, _ := json.Marshal(n)
		j.keys = append(j.keys, append(key, ':'))
	}
}

func (j *jsonWriter) Row(values []any) error {
	if j.err != nil {
		return j.err
	}
	if j.rows == 0 {
		j.w.WriteString("[\n{")
	} else {
		j.w.WriteString(",\n{")
	}
	j.rows++
	for i, v := range values {
		if i > 0 {
			j.w.WriteByte(',')
		}
		if i < len(j.keys) {
			j.w.Write(j.keys[i])
		}
		data, err := json.Marshal(v)
		if err != nil {
			j.err = fmt.Errorf("encode row %d: %w", j.rows, err)
			return j.err
		}
		j.w.Write(data)
	}
	_, j.err = j.w.WriteString("}")
	return j.err
}

func (j *jsonWriter) Close() error {
	if j.err != nil {
		return j.err
	}
	if j.rows == 0 {
		j.w.WriteString("[")
	}
	j.w.WriteString("\n]\n")
	return j.w.Flush()
}

// markdownWriter writes a table; a value is on one line, its pipes
// escaped, NULL as NULL.
type markdownWriter struct {
	w    *bufio.Writer
	err  error
	cell []byte
}

func (m *markdownWriter) Columns(names []string) {
	m.w.WriteByte('|')
	for _, n := range names {
		m.w.WriteByte(' ')
		m.w.WriteString(markdownCell(n))
		m.w.WriteString(" |")
	}
	m.w.WriteString("\n|")
	for range names {
		m.w.WriteString(" --- |")
	}
	_, m.err = m.w.WriteString("\n")
}

func (m *markdownWriter) Row(values []any) error {
	if m.err != nil {
		return m.err
	}
	m.w.WriteByte('|')
	for _, v := range values {
		m.w.WriteByte(' ')
		switch v := v.(type) {
		case nil:
			m.w.WriteString("NULL")
		case string:
			m.w.WriteString(markdownCell(v))
		default:
			m.cell, _ = appendValue(m.cell[:0], v)
			m.w.WriteString(markdownCell(string(m.cell)))
		}
		m.w.WriteString(" |")
	}
	_, m.err = m.w.WriteString("\n")
	return m.err
}

var markdownEscaper = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

func markdownCell(s string) string {
	if !strings.ContainsAny(s, "|\r\n") {
		return s
	}
	return markdownEscaper.Replace(s)
}

func (m *markdownWriter) Close() error {
	if m.err != nil {
		return m.err
	}
	return m.w.Flush()
}
