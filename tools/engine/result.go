package engine

import (
	"database/sql/driver"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"
	"unicode/utf8"
)

// The statuses of a StatementResult.
const (
	StatusSuccess   = "success"
	StatusError     = "error"     // the statement failed, or could not run
	StatusRejected  = "rejected"  // a write that was not confirmed, so not run
	StatusCancelled = "cancelled" // stopped by the caller's context
	// StatusRunning is the first page of a statement that still runs
	// (see WithFirstPage); a final result never has it.
	StatusRunning = "running"
)

// StatementResult is the outcome of one statement.
//
// Its exported fields are the editor's full view, at most MaxRows rows. Its
// JSON encoding (MarshalJSON) is instead the model's bounded view,
// ModelView, because the conversation loop sends tool results to the model
// with encoding/json; Full returns the value that encodes the editor's view.
type StatementResult struct {
	SQL    string `json:"sql"`
	Status string `json:"status"`
	// RowCount is the number of rows the statement returned, all of them,
	// counted as they streamed by; for a write without rows, the rows it
	// affected.
	RowCount int64    `json:"rowCount"`
	Columns  []string `json:"columns"`
	// ColumnTypes are the engine's type names of the columns, lower-case
	// (PostgreSQL's int4, numeric, date, timestamptz, _int4 for an array;
	// MySQL's int, decimal, date, datetime; SQLite's declared types), ""
	// where the engine gives none; nil for a statement without rows.
	ColumnTypes []string `json:"columnTypes,omitempty"`
	// Rows holds the first MaxRows rows, as JSON-friendly values: strings,
	// numbers (json.Number for exact decimals, their scale kept), bools,
	// nil, and JSON documents; bytes as a string when UTF-8, else base64;
	// dates, times, timestamps, intervals, UUIDs and arrays as the
	// engine's text (2024-01-02, 2024-01-02 13:45:00+00). Full sends the
	// exact decimals as strings (see EditorRows).
	Rows [][]any `json:"rows"`
	// Truncated says that Rows holds fewer rows than RowCount.
	Truncated bool `json:"truncated"`
	// Error says why the statement did not succeed, to the user.
	Error string `json:"error,omitempty"`
	// Warnings are what the engine said about the statement besides its
	// result: MySQL's and MariaDB's warnings and notes (a truncation, a
	// recursion cut short), PostgreSQL's notices, a line each.
	Warnings []string `json:"warnings,omitempty"`
	// AllowedBy is the scope of the allowance under which a write ran
	// without asking ("Allow UPDATE on t, up to 10 rows at a time, for
	// this conversation"), for the user to see why it did not ask; empty
	// for a statement the user answered and for a read.
	AllowedBy string `json:"allowedBy,omitempty"`

	// ForModel, when set, is what the model reads instead of Error: the
	// same fact, with what it should do next.
	ForModel string `json:"-"`
	// ModelBytes bounds the JSON of the rows in ModelView.
	ModelBytes int `json:"-"`
	// ReadOnlyRefused says that the database itself refused the statement
	// as a write, which the classifier had let through as a read.
	ReadOnlyRefused bool `json:"-"`
	// OverLimit is the rows a write changed that was rolled back for
	// changing more than its limit (see WithRowLimit); 0 otherwise.
	OverLimit int64 `json:"-"`
	// FirstRow is the time from the start of the run to the first row.
	FirstRow time.Duration `json:"-"`
}

// ModelRows is the model's view of a successful statement.
type ModelRows struct {
	Status    string   `json:"status"`
	RowCount  int64    `json:"row_count"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated"`
	Warnings  []string `json:"warnings,omitempty"`
}

// modelError is the model's view of a statement that did not succeed.
type modelError struct {
	Status   string   `json:"status"`
	Error    string   `json:"error"`
	Warnings []string `json:"warnings,omitempty"`
}

// ModelView returns what the model sees, in the shape of the AIQ CLI's
// execute_sql results: {"status":"success","row_count":3,"columns":[...],
// "rows":[...],"truncated":false} or {"status":"error","error":"..."}. Its
// rows are the first ones whose JSON fits the ModelBytes option; long text
// values are shortened (see modelCell) so that one wide row does not hide
// all the others; truncated says that the model sees fewer rows than
// row_count.
func (r *StatementResult) ModelView() any {
	if r.Status != StatusSuccess {
		msg := r.Error
		if r.ForModel != "" {
			msg = r.ForModel
		}
		return modelError{Status: r.Status, Error: msg, Warnings: r.Warnings}
	}
	rows := r.modelRows()
	return ModelRows{
		Status:   r.Status,
		RowCount: r.RowCount,
		Columns:  nonNil(r.Columns),
		Rows:     rows,
		// A write's row_count is the rows it changed, none of which it
		// returns: only a statement with columns can have rows cut off.
		Truncated: len(r.Columns) > 0 && int64(len(rows)) < r.RowCount,
		Warnings:  r.Warnings,
	}
}

// MarshalJSON encodes ModelView: a result marshalled for the model never
// carries more than its bound.
func (r *StatementResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.ModelView())
}

// editorResult is StatementResult without its MarshalJSON, so it encodes
// its fields.
type editorResult StatementResult

// Full returns the editor's view: a value whose JSON has every exported
// field of r, all MaxRows rows included ({"sql","status","rowCount",
// "columns","rows","truncated","error"}).
func (r *StatementResult) Full() any {
	e := *r
	e.Columns = nonNil(e.Columns)
	e.Rows = EditorRows(nonNil(e.Rows))
	return (*editorResult)(&e)
}

// modelRows returns the first rows whose JSON, as an array, fits in
// modelBytes.
func (r *StatementResult) modelRows() [][]any {
	limit := r.ModelBytes
	if limit <= 0 {
		limit = defaultModelBytes
	}
	// One text may take an eighth of the bound, so that a wide column
	// still leaves room for several rows.
	cellLimit := max(limit/8, 64)
	rows := [][]any{}
	size := len("[]")
	for _, row := range r.Rows {
		short := make([]any, len(row))
		for i, v := range row {
			short[i] = ModelCell(v, cellLimit)
		}
		data, err := json.Marshal(short)
		if err != nil {
			break
		}
		if len(rows) > 0 {
			size++ // the comma
		}
		if size+len(data) > limit {
			break
		}
		size += len(data)
		rows = append(rows, short)
	}
	return rows
}

// ModelCell shortens a text longer than limit bytes to its first bytes,
// cut at a character's start, and an ellipsis.
func ModelCell(v any, limit int) any {
	s, ok := v.(string)
	if !ok || len(s) <= limit {
		return v
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// nonNil returns s, or an empty slice for nil, so that JSON shows [] rather
// than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Collector receives a statement's rows as they stream from the driver: it
// counts them all and keeps the first max.
type Collector struct {
	// args are the values bound to the statement's placeholders (see
	// withBound).
	args  []any
	res   *StatementResult
	max   int
	start time.Time
	// page, when not nil, hears the first max rows once another row
	// follows them (see WithFirstPage).
	page func(*StatementResult)
	// convert turns the driver's value of column i into a JSON-friendly
	// one.
	convert func(i int, v any) any
	// sink, when not nil, gets every row (see WithRowSink); scratch is
	// the slice of the rows it gets that are not kept.
	sink    RowSink
	scratch []any
	// limit bounds the rows a write may change and still commit, -1 for
	// no bound (see WithRowLimit).
	limit int64
	// counted, under a limit, are the tables (quoted for SQL: the
	// write's own first) whose rows an engine without per-table counts
	// counts around the write, and kind the write's kind; changed is what
	// the write changed in them beyond its own rows.
	counted []string
	kind    string
	changed int64
}

// newCollector returns a Collector that fills res.
func newCollector(res *StatementResult, maxRows int) *Collector {
	return &Collector{res: res, max: maxRows, start: time.Now(), limit: -1, convert: func(_ int, v any) any { return JSONValue(v) }}
}

// Args returns the values to bind to the statement's placeholders, in
// order, which an engine passes to its driver with the statement.
func (c *Collector) Args() []any { return c.args }

// HasColumns reports whether the statement returned a result set, even
// an empty one, as opposed to a count of affected rows.
func (c *Collector) HasColumns() bool { return len(c.res.Columns) > 0 }

// SetConverter sets the function that turns the driver's value of column
// i into a JSON-friendly one; the default is JSONValue. An engine sets it
// once its result's column types are known, before the first Row.
func (c *Collector) SetConverter(convert func(i int, v any) any) { c.convert = convert }

// SetColumns records the result's column names.
func (c *Collector) SetColumns(names []string) {
	c.res.Columns = names
	c.res.Rows = [][]any{}
	if c.sink != nil {
		c.sink.Columns(names)
	}
}

// SetColumnTypes sets the engine's type name of each column (int4,
// numeric, date, DECIMAL, ...), "" where the engine has none to give.
func (c *Collector) SetColumnTypes(types []string) { c.res.ColumnTypes = types }

// Row counts one row and, while fewer than max are kept, keeps it. values
// reads the row; it is called only for a row that is kept, so rows past the
// bound cost no conversion.
func (c *Collector) Row(values func() ([]any, error)) error {
	if c.sink != nil {
		return c.sinkRow(values)
	}
	c.res.RowCount++
	if c.res.RowCount == 1 {
		c.res.FirstRow = time.Since(c.start)
	}
	if len(c.res.Rows) >= c.max {
		if !c.res.Truncated && c.page != nil {
			c.page(c.running())
		}
		c.res.Truncated = true
		return nil
	}
	vals, err := values()
	if err != nil {
		return fmt.Errorf("read row %d: %w", c.res.RowCount, err)
	}
	row := make([]any, len(vals))
	for i, v := range vals {
		row[i] = c.convert(i, v)
	}
	c.res.Rows = append(c.res.Rows, row)
	return nil
}

// running returns the result so far, as WithFirstPage reports it. Its
// rows are shared with the result, which keeps no more of them.
func (c *Collector) running() *StatementResult {
	r := c.res
	return &StatementResult{SQL: r.SQL, Status: StatusRunning, RowCount: r.RowCount, Columns: r.Columns, ColumnTypes: r.ColumnTypes,
		Rows: r.Rows[:len(r.Rows):len(r.Rows)], Truncated: true, ModelBytes: r.ModelBytes}
}

// MaxWarnings bounds the warnings a result keeps, and maxWarningBytes
// each one's length: a statement may raise one per row.
const (
	MaxWarnings     = 10
	maxWarningBytes = 500
)

// Warn records what the engine said about the statement; past
// MaxWarnings, the last line says how many more there were.
func (c *Collector) Warn(msg string) {
	switch n := len(c.res.Warnings); {
	case n < MaxWarnings:
		c.res.Warnings = append(c.res.Warnings, CutText(msg, maxWarningBytes))
	case n == MaxWarnings:
		c.res.Warnings = append(c.res.Warnings, "and more")
	}
}

// SetAffected records the rows a write affected, for a statement that
// returns no rows.
func (c *Collector) SetAffected(n int64) {
	if len(c.res.Columns) == 0 && n > 0 {
		c.res.RowCount = n
	}
}

// JSONValue turns a value from a driver into one that encoding/json
// encodes, and that a JSON reader gets back without loss where it can.
func JSONValue(v any) any { return JSONValueWith(v, nil) }

// JSONValueWith is JSONValue with own, an engine's converter of its
// driver's own types (PostgreSQL's numeric): own is asked about each value
// JSONValue does not know, at any depth of an array or document, and
// leaves it to JSONValue when it returns ok false. own may be nil.
func JSONValueWith(v any, own func(v any) (any, bool)) any {
	switch v := v.(type) {
	case nil, bool, string, json.Number, json.RawMessage,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v
	case float32:
		return jsonFloat(float64(v), 32)
	case float64:
		return jsonFloat(v, 64)
	case []byte:
		return JSONBytes(v)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case [16]byte: // a PostgreSQL uuid
		return uuidString(v)
	case netip.Prefix: // a PostgreSQL inet or cidr
		if v.IsSingleIP() {
			return v.Addr().String()
		}
		return v.String()
	case map[string]any: // a json or jsonb document
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = JSONValueWith(e, own)
		}
		return m
	case []any: // a json array or a PostgreSQL array
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = JSONValueWith(e, own)
		}
		return s
	}
	if own != nil {
		if conv, ok := own(v); ok {
			return conv
		}
	}
	return otherValue(v)
}

// otherValue converts the values of the types JSONValue does not list:
// interval and other pgtype values through their SQL value or their text.
func otherValue(v any) any {
	if valuer, ok := v.(driver.Valuer); ok {
		if val, err := valuer.Value(); err == nil {
			switch val := val.(type) {
			case nil, bool, string, int64, float64, []byte, time.Time:
				return JSONValue(val)
			}
		}
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}

// jsonFloat returns a finite float as is and the others (NaN, ±Inf),
// which JSON cannot hold, as text. A float32 becomes the shortest decimal
// that reads back as it, so that 0.1 stays 0.1.
func jsonFloat(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	if bits == 32 {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 32))
	}
	return f
}

// JSONBytes returns bytes as text when they are UTF-8, else as base64.
func JSONBytes(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// uuidString formats a UUID as 8-4-4-4-12 hexadecimal digits.
func uuidString(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// JSONNumber returns the text of a decimal as a json.Number when it is a
// valid JSON number, else as a string (NaN, Infinity).
func JSONNumber(s string) any {
	if isJSONNumber(s) {
		return json.Number(s)
	}
	return s
}

// isJSONNumber reports whether s is a number in JSON's syntax.
func isJSONNumber(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	return json.Valid([]byte(s))
}
