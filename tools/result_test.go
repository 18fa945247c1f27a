package tools

import (
	"encoding/json"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/engine/mysql"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

func TestJSONValue(t *testing.T) {
	interval := pgtype.Interval{Days: 1, Microseconds: 3_600_000_000, Valid: true}
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, `null`},
		{int32(7), `7`},
		{uint64(math.MaxUint64), `18446744073709551615`},
		{float32(0.1), `0.1`},
		{math.NaN(), `"NaN"`},
		{math.Inf(-1), `"-Inf"`},
		{[]byte("héllo"), `"héllo"`},
		{[]byte{0xff, 0x00}, `"/wA="`},
		{time.Date(2024, 1, 2, 3, 4, 5, 600, time.UTC), `"2024-01-02T03:04:05.0000006Z"`},
		{[16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, `"12345678-9abc-def0-0102-030405060708"`},
		{map[string]any{"a": []any{1.5, []byte("x")}}, `{"a":[1.5,"x"]}`},
		{interval, `"1 day 01:00:00"`},
		{netip.MustParsePrefix("10.0.0.0/8"), `"10.0.0.0/8"`},
		{netip.MustParsePrefix("10.0.0.1/32"), `"10.0.0.1"`},
		{struct{ A int }{1}, `"{1}"`},
	} {
		got, err := json.Marshal(engine.JSONValue(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("jsonValue(%#v) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestMySQLConverter(t *testing.T) {
	convert := func(typ string, v any) string {
		data, err := json.Marshal(mysql.Value(typ, v))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, c := range []struct {
		typ  string
		in   any
		want string
	}{
		{"DECIMAL", []byte("123.450"), `123.450`},
		{"BIT", []byte{1, 0}, `256`},
		{"JSON", []byte(`{"a": 1}`), `{"a":1}`},
		{"VARCHAR", []byte("text"), `"text"`},
		{"BLOB", []byte{0xff}, `"/w=="`},
		{"BIGINT", int64(5), `5`},
	} {
		if got := convert(c.typ, c.in); got != c.want {
			t.Errorf("%s %v = %s, want %s", c.typ, c.in, got, c.want)
		}
	}
}

// resultOf returns a successful result with n rows of one number and a
// text of width bytes.
func resultOf(n, width, modelBytes int) *engine.StatementResult {
	r := &engine.StatementResult{SQL: "SELECT", Status: engine.StatusSuccess, RowCount: int64(n), Columns: []string{"n", "s"},
		Rows: [][]any{}, ModelBytes: modelBytes}
	for i := range n {
		r.Rows = append(r.Rows, []any{i, strings.Repeat("x", width)})
	}
	return r
}

func TestModelView(t *testing.T) {
	r := resultOf(100, 10, 200)
	r.RowCount = 1000 // more rows than the editor keeps
	r.Truncated = true
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		Status    string            `json:"status"`
		RowCount  int64             `json:"row_count"`
		Columns   []string          `json:"columns"`
		Rows      []json.RawMessage `json:"rows"`
		Truncated bool              `json:"truncated"`
	}
	if err := json.Unmarshal(data, &view); err != nil {
		t.Fatal(err)
	}
	rows, _ := json.Marshal(view.Rows)
	if view.Status != "success" || view.RowCount != 1000 || len(view.Columns) != 2 || !view.Truncated ||
		len(rows) > 200 || len(view.Rows) < 5 {
		t.Errorf("model view %s: want the first rows within 200 bytes", data)
	}

	// A wide text is shortened so that rows still fit.
	wide := resultOf(3, 10_000, 4096)
	rows, _ = json.Marshal(wide.ModelView().(engine.ModelRows).Rows)
	if got := wide.ModelView().(engine.ModelRows); len(got.Rows) != 3 || got.Truncated || len(rows) > 4096 {
		t.Errorf("wide rows: %d shown, truncated %v, %d bytes", len(got.Rows), got.Truncated, len(rows))
	}
	cell := wide.ModelView().(engine.ModelRows).Rows[0][1].(string)
	if !strings.HasSuffix(cell, "…") || len(cell) > 4096/8+len("…") {
		t.Errorf("wide cell: %d bytes", len(cell))
	}

	failed := &engine.StatementResult{SQL: "SELECT", Status: engine.StatusError, Error: "boom"}
	if got := mustJSON(t, failed); got != `{"status":"error","error":"boom"}` {
		t.Errorf("error view = %s", got)
	}
	empty := &engine.StatementResult{Status: engine.StatusSuccess}
	if got := mustJSON(t, empty); got != `{"status":"success","row_count":0,"columns":[],"rows":[],"truncated":false}` {
		t.Errorf("empty view = %s", got)
	}
	// A write's row_count is the rows it changed, which it never returns.
	write := &engine.StatementResult{SQL: "DELETE FROM t", Status: engine.StatusSuccess, RowCount: 3}
	if got := mustJSON(t, write); got != `{"status":"success","row_count":3,"columns":[],"rows":[],"truncated":false}` {
		t.Errorf("write view = %s", got)
	}
}

func TestFull(t *testing.T) {
	r := resultOf(3, 2, 10)
	got := mustJSON(t, r.Full())
	want := `{"sql":"SELECT","status":"success","rowCount":3,"columns":["n","s"],"rows":[[0,"xx"],[1,"xx"],[2,"xx"]],"truncated":false}`
	if got != want {
		t.Errorf("Full = %s\nwant %s", got, want)
	}
	failed := &engine.StatementResult{SQL: "x", Status: engine.StatusError, Error: "boom"}
	if got := mustJSON(t, failed.Full()); got != `{"sql":"x","status":"error","rowCount":0,"columns":[],"rows":[],"truncated":false,"error":"boom"}` {
		t.Errorf("Full of an error = %s", got)
	}
}

func TestModelCell(t *testing.T) {
	s := strings.Repeat("é", 100) // two bytes each
	got := engine.ModelCell(s, 51).(string)
	if got != strings.Repeat("é", 25)+"…" {
		t.Errorf("modelCell cut %q", got)
	}
	if engine.ModelCell(7, 1) != 7 || engine.ModelCell("short", 10) != "short" {
		t.Error("modelCell changed a value within its limit")
	}
}

func TestRedactor(t *testing.T) {
	r := engine.NewRedactor("p@ss:w/rd?#x")
	msg := r.Clean("a p@ss:w/rd?#x b p%40ss%3Aw%2Frd%3F%23x c p@ss:w%2Frd%3F%23x")
	if strings.Contains(msg, "ss") {
		t.Errorf("clean left the password: %q", msg)
	}
	if short := engine.NewRedactor("ab"); short.Clean("abc") != "abc" {
		t.Error("a two-letter password garbled a message")
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := engine.Options{}.WithDefaults()
	if o.StatementTimeout != 30*time.Second || o.ConnectTimeout != 10*time.Second || o.MaxRows != 500 || o.ModelBytes != 4096 {
		t.Errorf("defaults = %+v", o)
	}
	o = engine.Options{StatementTimeout: time.Second, MaxRows: 3}.WithDefaults()
	if o.StatementTimeout != time.Second || o.MaxRows != 3 {
		t.Errorf("set options changed: %+v", o)
	}
}

func TestDialectOf(t *testing.T) {
	for typ, want := range map[string]sqltext.Dialect{
		"postgresql": sqltext.DialectPostgres, "mysql": sqltext.DialectMySQL, "seekdb": sqltext.DialectMySQL, "SQLite": sqltext.DialectSQLite, "oracle": "",
	} {
		if got := engine.DialectOf(typ); got != want {
			t.Errorf("DialectOf(%q) = %q, want %q", typ, got, want)
		}
	}
}

func TestParseMySQLVersion(t *testing.T) {
	for _, c := range []struct{ v, typ, want string }{
		{"10.11.6-MariaDB-0+deb12u1", "mysql", "MariaDB 10.11.6"},
		{"8.0.36", "mysql", "MySQL 8.0.36"},
		{"8.0.36-0ubuntu0.22.04.1", "mysql", "MySQL 8.0.36"},
		{"5.7.25-OceanBase_CE-v4.3.5.1", "seekdb", "seekdb 5.7.25-OceanBase_CE-v4.3.5.1"},
	} {
		if got := mysql.ParseVersion(c.v, c.typ).Version; got != c.want {
			t.Errorf("parseMySQLVersion(%q) = %q, want %q", c.v, got, c.want)
		}
	}
}
