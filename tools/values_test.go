package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// value is one column of TestValues: what the model reads (the JSON of
// the value in ModelView), what the editor gets (its JSON in Full), the
// CSV field an export writes, and the column's type name.
type value struct {
	expr, typ, model, editor, csv string
}

// valueCases are the columns TestValues reads on each engine. The
// editor's JSON differs from the model's for exact decimals only: a
// string, which JavaScript does not turn into a float.
var valueCases = map[string][]value{
	"postgres": {
		{"1::int2", "int2", `1`, `1`, `1`},
		{"2::int8", "int8", `2`, `2`, `2`},
		{"31.70::numeric(10,2)", "numeric", `31.70`, `"31.70"`, `31.70`},
		{"-0.50::numeric", "numeric", `-0.50`, `"-0.50"`, `-0.50`},
		{"'NaN'::numeric", "numeric", `"NaN"`, `"NaN"`, `NaN`},
		{"1.5::float4", "float4", `1.5`, `"1.5"`, `1.5`},
		{"0.1::float8", "float8", `0.1`, `0.1`, `0.1`},
		{"'Infinity'::float8", "float8", `"Infinity"`, `"Infinity"`, `Infinity`},
		{"true", "bool", `true`, `true`, `true`},
		{"'2024-01-02'::date", "date", `"2024-01-02"`, `"2024-01-02"`, `2024-01-02`},
		{"'13:45:00'::time", "time", `"13:45:00"`, `"13:45:00"`, `13:45:00`},
		{"'2024-01-02 13:45:00'::timestamp", "timestamp", `"2024-01-02 13:45:00"`, `"2024-01-02 13:45:00"`, `2024-01-02 13:45:00`},
		{"'2024-01-02 03:04:05.5+00'::timestamptz", "timestamptz", `"2024-01-02 03:04:05.5+00"`, `"2024-01-02 03:04:05.5+00"`, `2024-01-02 03:04:05.5+00`},
		{"interval '1 day 2 hours'", "interval", `"1 day 02:00:00"`, `"1 day 02:00:00"`, `1 day 02:00:00`},
		{"'b1a5e8d0-0000-4000-8000-000000000001'::uuid", "uuid", `"b1a5e8d0-0000-4000-8000-000000000001"`, `"b1a5e8d0-0000-4000-8000-000000000001"`, `b1a5e8d0-0000-4000-8000-000000000001`},
		{`'\x00ff'::bytea`, "bytea", `"AP8="`, `"AP8="`, `AP8=`},
		{"'héllo'::bytea", "bytea", `"héllo"`, `"héllo"`, `héllo`},
		{`'{"a": [1, 2]}'::json`, "json", `{"a":[1,2]}`, `{"a":[1,2]}`, `"{""a"": [1, 2]}"`},
		{`'{"a": [1, 2]}'::jsonb`, "jsonb", `{"a":[1,2]}`, `{"a":[1,2]}`, `"{""a"": [1, 2]}"`},
		{"ARRAY[1, 2]", "_int4", `"{1,2}"`, `"{1,2}"`, `"{1,2}"`},
		{"ARRAY['a b', NULL]", "_text", `"{\"a b\",NULL}"`, `"{\"a b\",NULL}"`, `"{""a b"",NULL}"`},
		{"'10.0.0.1'::inet", "inet", `"10.0.0.1"`, `"10.0.0.1"`, `10.0.0.1`},
		{"'=1+1'::text", "text", `"=1+1"`, `"=1+1"`, `"'=1+1"`},
		{"NULL::text", "text", `null`, `null`, ``},
	},
	"mariadb": {
		{"1", "int", `1`, `1`, `1`},
		{"CAST(2 AS UNSIGNED)", "unsigned int", `2`, `2`, `2`},
		{"dec2", "decimal", `31.70`, `"31.70"`, `31.70`},
		{"1.5e0", "double", `1.5`, `1.5`, `1.5`},
		{"d", "date", `"2024-01-02"`, `"2024-01-02"`, `2024-01-02`},
		{"tm", "time", `"13:45:00"`, `"13:45:00"`, `13:45:00`},
		{"dt", "datetime", `"2024-01-02 13:45:00"`, `"2024-01-02 13:45:00"`, `2024-01-02 13:45:00`},
		{"ts", "timestamp", `"2024-01-02 03:04:05.500000"`, `"2024-01-02 03:04:05.500000"`, `2024-01-02 03:04:05.500000`},
		{"X'00FF'", "varbinary", `"AP8="`, `"AP8="`, `AP8=`},
		{"bl", "blob", `"AP8="`, `"AP8="`, `AP8=`},
		{"'héllo'", "varchar", `"héllo"`, `"héllo"`, `héllo`},
		{"b", "bit", `5`, `5`, `5`},
		// MariaDB's JSON is a LONGTEXT, which the driver reports as text.
		{"j", "text", `"{\"a\": 1}"`, `"{\"a\": 1}"`, `"{""a"": 1}"`},
		{"NULL", "null", `null`, `null`, ``},
	},
	"sqlite": {
		{"1", "", `1`, `1`, `1`},
		{"1.5", "", `1.5`, `1.5`, `1.5`},
		{"'héllo'", "", `"héllo"`, `"héllo"`, `héllo`},
		{"X'00FF'", "", `"AP8="`, `"AP8="`, `AP8=`},
		{"d", "date", `"2024-01-02"`, `"2024-01-02"`, `2024-01-02`},
		{"dt", "datetime", `"2024-01-02 13:45:00"`, `"2024-01-02 13:45:00"`, `2024-01-02 13:45:00`},
		{"dx", "date", `"next week"`, `"next week"`, `next week`},
		{"n", "numeric(10,2)", `31.7`, `31.7`, `31.7`},
		{"NULL", "", `null`, `null`, ``},
		{"1e999", "", `"+Inf"`, `"+Inf"`, `"'+Inf"`},
	},
}

// valueTables are the tables the columns that are not expressions come
// from.
var valueTables = map[string][]string{
	"mariadb": {
		"CREATE TABLE v (dec2 DECIMAL(10,2), d DATE, tm TIME, dt DATETIME, ts TIMESTAMP(6) NULL, bl BLOB, b BIT(3), j JSON)",
		`INSERT INTO v VALUES (31.70, '2024-01-02', '13:45:00', '2024-01-02 13:45:00', '2024-01-02 03:04:05.5', X'00FF', b'101', '{"a": 1}')`,
	},
	"sqlite": {
		"CREATE TABLE v (d DATE, dt DATETIME, dx DATE, n NUMERIC(10,2))",
		"INSERT INTO v VALUES ('2024-01-02', '2024-01-02 13:45:00', 'next week', 31.70)",
	},
}

// TestValues reads values of each engine's common types, from the
// database to the model (ModelView), the editor (Full) and a CSV export,
// which all get the engine's own text of dates, times and decimals.
func TestValues(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		cases := valueCases[e.name]
		src := e.source(t)
		from := ""
		if stmts := valueTables[e.name]; stmts != nil {
			dbtest.Exec(t, src, stmts...)
			from = " FROM v"
		}
		exprs := make([]string, len(cases))
		for i, c := range cases {
			exprs[i] = c.expr
		}
		query := "SELECT " + strings.Join(exprs, ", ") + from
		db := openDB(t, src, engine.Options{})

		var csv bytes.Buffer
		w, err := engine.NewRowWriter(&csv, engine.FormatCSV)
		if err != nil {
			t.Fatal(err)
		}
		res := db.Run(engine.WithRowSink(context.Background(), w), query, false)
		wantStatus(t, res, engine.StatusSuccess)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		model := firstRow(t, res.ModelView())
		editor := firstRow(t, res.Full())
		lines := strings.Split(csv.String(), "\r\n")
		if len(lines) < 2 {
			t.Fatalf("CSV %q has no row", csv.String())
		}
		fields := splitCSV(lines[1])
		if len(model) != len(cases) || len(editor) != len(cases) || len(fields) != len(cases) {
			t.Fatalf("%d model values, %d editor values, %d CSV fields, want %d each; CSV %q", len(model), len(editor), len(fields), len(cases), lines[1])
		}
		for i, c := range cases {
			if got := string(model[i]); got != c.model {
				t.Errorf("%s: the model gets %s, want %s", c.expr, got, c.model)
			}
			if got := string(editor[i]); got != c.editor {
				t.Errorf("%s: the editor gets %s, want %s", c.expr, got, c.editor)
			}
			if fields[i] != c.csv {
				t.Errorf("%s: CSV field %s, want %s", c.expr, fields[i], c.csv)
			}
			if i >= len(res.ColumnTypes) || res.ColumnTypes[i] != c.typ {
				t.Errorf("%s: column types %q, want %q at %d", c.expr, res.ColumnTypes, c.typ, i)
			}
		}
	})
}

// firstRow returns the JSON of each value of the first row of a view
// (ModelView or Full).
func firstRow(t *testing.T, view any) []json.RawMessage {
	t.Helper()
	data, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Rows [][]json.RawMessage }
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) == 0 {
		t.Fatalf("no row in %s", data)
	}
	return v.Rows[0]
}

// splitCSV splits a CSV line at its commas outside quotes, keeping each
// field as written.
func splitCSV(line string) []string {
	var fields []string
	start, quoted := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				fields = append(fields, line[start:i])
				start = i + 1
			}
		}
	}
	return append(fields, line[start:])
}
