package tools

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// confirmer is a Confirmer that answers from a script and records the
// requests.
type confirmer struct {
	mu        sync.Mutex
	answers   []guard.Decision
	err       error
	requests  []guard.ConfirmRequest
	onConfirm func() // called during the confirmation, when set
}

func (c *confirmer) confirm(ctx context.Context, req guard.ConfirmRequest) (guard.Decision, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, req)
	if c.onConfirm != nil {
		c.onConfirm()
	}
	if c.err != nil {
		return "", c.err
	}
	if len(c.answers) == 0 {
		return Reject, nil
	}
	d := c.answers[0]
	c.answers = c.answers[1:]
	return d, nil
}

// execSQL runs execute_sql through the Set.
func execSQL(t *testing.T, s *Set, sql string) *engine.StatementResult {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"sql": sql})
	out, err := s.Run(context.Background(), ToolExecuteSQL, args)
	if err != nil {
		t.Fatalf("execute_sql %s: %v", sql, err)
	}
	res, ok := out.(*engine.StatementResult)
	if !ok {
		t.Fatalf("execute_sql returned %T, want *StatementResult", out)
	}
	return res
}

func TestSetConfirmation(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := seeded(t, e, engine.Options{})
		count := func() int64 { return dbtest.QueryInt(t, src, "SELECT count(*) FROM t") }
		c := &confirmer{answers: []guard.Decision{Reject}}
		s := NewSet(db, c.confirm)

		// Reads never ask.
		wantStatus(t, execSQL(t, s, "SELECT * FROM t"), engine.StatusSuccess)
		if len(c.requests) != 0 {
			t.Fatalf("a read asked for confirmation: %+v", c.requests)
		}

		insert := "INSERT INTO t (id, name) VALUES (4, 'four')"
		before := fingerprint(t, e, src)
		res := execSQL(t, s, insert)
		wantStatus(t, res, engine.StatusRejected)
		if model := mustJSON(t, res); !strings.Contains(model, "declined") || !strings.Contains(model, "not retry") {
			t.Errorf("the model reads %s, want it to say the user declined and not to retry", model)
		}
		if res.Error != "You declined this statement, so it did not run." {
			t.Errorf("the user reads %q, want one sentence that says they declined it", res.Error)
		}
		if after := fingerprint(t, e, src); after != before {
			t.Errorf("a rejected write changed the database")
		}
		want := guard.ConfirmRequest{Tool: ToolExecuteSQL, SQL: insert, Risk: "write"}
		if len(c.requests) != 1 || c.requests[0].Tool != want.Tool || c.requests[0].SQL != want.SQL ||
			c.requests[0].Risk != want.Risk || c.requests[0].Reason == "" {
			t.Errorf("requests = %+v, want one like %+v with a reason", c.requests, want)
		}

		c.answers = []guard.Decision{AllowOnce}
		res = execSQL(t, s, insert)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 1 || count() != 4 {
			t.Errorf("allowed insert: row count %d, rows of t %d; want 1 and 4", res.RowCount, count())
		}

		// allow_once was for one statement; allow_always is for the Set,
		// and for statements of the same shape only.
		c.answers = []guard.Decision{AllowAlways, AllowOnce}
		wantStatus(t, execSQL(t, s, "DELETE FROM t WHERE id = 4"), engine.StatusSuccess)
		if _, err := s.Run(context.Background(), ToolListTables, nil); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, execSQL(t, s, "DELETE FROM t WHERE id = 5"), engine.StatusSuccess)
		res = execSQL(t, s, "CREATE TABLE made (a int)")
		wantStatus(t, res, engine.StatusSuccess)
		if len(c.requests) != 4 {
			t.Errorf("%d confirmations, want 4: allow_always must cover the same shape, and only it", len(c.requests))
		}
		// A confirmed DDL refreshes the schema.
		out, err := s.Run(context.Background(), ToolListTables, json.RawMessage(`{}`))
		if err != nil || !strings.Contains(mustJSON(t, out), `"made"`) {
			t.Errorf("list_tables after CREATE TABLE = %s, %v; want made in it", mustJSON(t, out), err)
		}

		// Another Set of the same DB has its own answers.
		other := NewSet(db, nil)
		before = fingerprint(t, e, src)
		res = execSQL(t, other, "DROP TABLE made")
		wantStatus(t, res, engine.StatusRejected)
		if after := fingerprint(t, e, src); after != before {
			t.Errorf("a write without a confirmer changed the database")
		}
	})
}

// TestSetDatabaseRefusal calls a function that writes: the classifier
// cannot know, the read-only transaction refuses it, and the Set then asks
// the user as for any write.
func TestSetDatabaseRefusal(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.addRow == "" {
			return // SQLite has no functions written in SQL
		}
		src, db := seeded(t, e, engine.Options{})
		dbtest.Exec(t, src, e.addRow)
		count := func() int64 { return dbtest.QueryInt(t, src, "SELECT count(*) FROM t") }
		c := &confirmer{answers: []guard.Decision{Reject, AllowOnce}}
		s := NewSet(db, c.confirm)
		res := execSQL(t, s, "SELECT add_row()")
		wantStatus(t, res, engine.StatusRejected)
		if len(c.requests) != 1 || !strings.Contains(c.requests[0].Reason, "database refused") || count() != 3 {
			t.Fatalf("requests %+v, rows %d; want one confirmation and no new row", c.requests, count())
		}
		res = execSQL(t, s, "SELECT add_row()")
		wantStatus(t, res, engine.StatusSuccess)
		if count() != 4 || rowsJSON(t, res) != "[[9]]" {
			t.Errorf("allowed: rows of t %d, result %s; want 4 and [[9]]", count(), rowsJSON(t, res))
		}
	})
}

func TestSetConfirmerFails(t *testing.T) {
	src, db := seeded(t, testEngines[0], engine.Options{})
	c := &confirmer{err: errors.New("the editor went away")}
	res := execSQL(t, NewSet(db, c.confirm), "DELETE FROM t")
	wantStatus(t, res, engine.StatusRejected)
	if !strings.Contains(mustJSON(t, res), "the editor went away") || dbtest.QueryInt(t, src, "SELECT count(*) FROM t") != 3 {
		t.Errorf("the model reads %s; the write must not run", mustJSON(t, res))
	}
	if strings.Contains(res.Error, "not run:") || !strings.HasSuffix(res.Error, "so it did not run.") {
		t.Errorf("the user reads %q, want one sentence", res.Error)
	}

	// A turn cancelled while the user decides runs nothing.
	ctx, cancel := context.WithCancel(context.Background())
	c = &confirmer{answers: []guard.Decision{AllowOnce}, onConfirm: cancel}
	out, err := NewSet(db, c.confirm).Run(ctx, ToolExecuteSQL, json.RawMessage(`{"sql":"DELETE FROM t"}`))
	if err != nil || out.(*engine.StatementResult).Status != engine.StatusCancelled {
		t.Errorf("cancelled during confirmation: %+v, %v; want status cancelled", out, err)
	}
	if dbtest.QueryInt(t, src, "SELECT count(*) FROM t") != 3 {
		t.Errorf("the write ran after its turn was cancelled")
	}
}

func TestSetTools(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		_, db := seeded(t, e, engine.Options{})
		s := NewSet(db, nil)
		names := []string{}
		for _, spec := range s.Specs() {
			names = append(names, spec.Name)
			var schema map[string]any
			if err := json.Unmarshal(spec.Parameters, &schema); err != nil || schema["type"] != "object" || spec.Description == "" {
				t.Errorf("spec %s: parameters %s (%v), description %q", spec.Name, spec.Parameters, err, spec.Description)
			}
		}
		if !slices.Equal(names, []string{ToolExecuteSQL, ToolListTables, ToolDescribeTable, ToolRenderChart, ToolSearchSchema, ToolProfileColumn, ToolExplainSQL}) {
			t.Errorf("tools = %v", names)
		}

		out, err := s.Run(ctx, ToolListTables, json.RawMessage(`{}`))
		if got := mustJSON(t, out); err != nil || got != `{"tables":["t"]}` {
			t.Errorf("list_tables = %s, %v", got, err)
		}
		out, err = s.Run(ctx, ToolDescribeTable, json.RawMessage(`{"table":"T"}`))
		if c, ok := out.(*TableCards); err != nil || !ok || len(c.Tables) != 1 || !strings.HasPrefix(c.Tables[0], "table t") || !strings.Contains(c.Tables[0], "\n  id int PK\n") {
			t.Errorf("describe_table T = %+v, %v", out, err)
		}
		out, err = s.Run(ctx, ToolDescribeTable, json.RawMessage(`{"table":"tt"}`))
		if c, ok := out.(*TableCards); err != nil || !ok || len(c.NotFound) != 1 || c.NotFound[0] != "no table `tt`; did you mean `t`?" {
			t.Errorf("describe_table tt = %+v, %v; want a result that names t", out, err)
		}
	})
}

func TestSetArguments(t *testing.T) {
	_, db := seeded(t, testEngines[0], engine.Options{})
	s := NewSet(db, nil)
	ctx := context.Background()
	for _, c := range []struct {
		tool, args, want string
	}{
		{ToolExecuteSQL, `{}`, "needs the sql argument"},
		{ToolExecuteSQL, `{"sql": "  "}`, "needs the sql argument"},
		{ToolExecuteSQL, `[1]`, "not the JSON object"},
		{ToolDescribeTable, ``, "needs the table argument"},
		{"drop_everything", `{}`, `unknown tool "drop_everything"`},
		{ToolRenderChart, `{"chart_type":"bar","x":"name","y":"id"}`, "run a query first"},
	} {
		_, err := s.Run(ctx, c.tool, json.RawMessage(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.tool, c.args, err, c.want)
		}
	}
	// An SQL error is a result, not a Go error.
	if res := execSQL(t, s, "SELECT nope FROM t"); res.Status != engine.StatusError {
		t.Errorf("SQL error: status %q", res.Status)
	}
}

func TestRenderChart(t *testing.T) {
	_, db := seeded(t, testEngines[0], engine.Options{})
	s := NewSet(db, nil)
	ctx := context.Background()
	wantStatus(t, execSQL(t, s, "SELECT name, id, id * 1.5 AS half, NULL AS missing FROM t ORDER BY id"), engine.StatusSuccess)
	// A failed statement does not replace the last successful result.
	execSQL(t, s, "SELECT nope FROM t")

	out, err := s.Run(ctx, ToolRenderChart, json.RawMessage(`{"chart_type":"bar","x":"name","y":"ID","title":"Ids"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"chartType":"bar","x":"name","y":"id","title":"Ids","labels":["one","two","three"],"values":[1,2,3]}`
	if got := mustJSON(t, out); got != want {
		t.Errorf("bar chart = %s\nwant %s", got, want)
	}
	out, err = s.Run(ctx, ToolRenderChart, json.RawMessage(`{"chart_type":"scatter","x":"id","y":"half"}`))
	want = `{"chartType":"scatter","x":"id","y":"half","points":[{"x":1,"y":1.5},{"x":2,"y":3},{"x":3,"y":4.5}]}`
	if got := mustJSON(t, out); err != nil || got != want {
		t.Errorf("scatter chart = %s, %v\nwant %s", got, err, want)
	}
	for _, c := range []struct{ args, want string }{
		{`{"chart_type":"donut","x":"name","y":"id"}`, "not one of bar, line, pie or scatter"},
		{`{"chart_type":"pie","x":"nope","y":"id"}`, `x "nope" is not a column of the last result; its columns are name, id, half, missing`},
		{`{"chart_type":"line","x":"id","y":"name"}`, `column "name" holds one in row 1, which is not a number`},
		{`{"chart_type":"line","x":"id","y":"missing"}`, "no rows with values"},
	} {
		_, err := s.Run(ctx, ToolRenderChart, json.RawMessage(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("render_chart %s: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// mustJSON returns v's JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(data)
}

// TestConfirmationSaysWhy checks what the model and the dialog are told of
// a statement that must ask first: the classifier's reason, true of a read
// that leaves the database as of a write, and a risk that names which.
func TestConfirmationSaysWhy(t *testing.T) {
	cases := []struct {
		sql      string
		d        sqltext.Dialect
		risk     string
		saysWhat string
	}{
		{"INSERT INTO t VALUES (1)", sqltext.DialectSQLite, "write", "INSERT adds rows"},
		{"DROP TABLE t", sqltext.DialectPostgres, "ddl", "DROP TABLE deletes"},
		{"SELECT pg_read_file('/etc/passwd')", sqltext.DialectPostgres, "outside", "reads a file on the database server"},
		{"EXPLAIN ANALYZE SELECT pg_read_file('/etc/passwd')", sqltext.DialectPostgres, "outside", "reads a file on the database server"},
		{"SELECT LOAD_FILE('/etc/passwd')", sqltext.DialectMySQL, "outside", "reads a file on the database server"},
		{"ATTACH DATABASE '/tmp/x.db' AS x", sqltext.DialectSQLite, "outside", "opens another database file"},
		{"SELECT readfile('/etc/passwd')", sqltext.DialectSQLite, "outside", "reads a file on the machine"},
	}
	for _, c := range cases {
		v, err := sqltext.Classify(c.sql, c.d)
		if err != nil || v.Class != sqltext.Write {
			t.Fatalf("%s: %+v, %v; want a statement that asks first", c.sql, v, err)
		}
		if got := riskOf(v); got != c.risk {
			t.Errorf("%s: risk %q, want %q", c.sql, got, c.risk)
		}
		msg := engine.NeedsConfirmation(v)
		if !strings.HasPrefix(msg, "not run: it needs the user's confirmation: ") || !strings.Contains(msg, c.saysWhat) {
			t.Errorf("%s: the model is told %q, want the confirmation and %q", c.sql, msg, c.saysWhat)
		}
		if c.risk == "outside" && strings.Contains(msg, "change") {
			t.Errorf("%s: the model is told %q, which says a read changes the database", c.sql, msg)
		}
	}
}

// TestSchemaFollowsConfirmedDDL: on every engine, the schema the model is
// described after a CREATE TABLE the user allowed holds the new table, and
// one the user declined changes nothing.
func TestSchemaFollowsConfirmedDDL(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		_, db := seeded(t, e, engine.Options{})
		c := &confirmer{answers: []guard.Decision{Reject, AllowOnce}}
		s := NewSet(db, c.confirm)
		has := func(name string) bool {
			t.Helper()
			schema, err := db.Schema(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range schema.Tables {
				if strings.EqualFold(tb.Name, name) {
					return true
				}
			}
			return false
		}
		if has("made_now") {
			t.Fatal("the table is there before it was made")
		}
		wantStatus(t, execSQL(t, s, "CREATE TABLE made_now (id int)"), engine.StatusRejected)
		if has("made_now") {
			t.Fatal("a declined CREATE TABLE shows in the schema")
		}
		wantStatus(t, execSQL(t, s, "CREATE TABLE made_now (id int)"), engine.StatusSuccess)
		if !has("made_now") {
			t.Error("the schema read after an allowed CREATE TABLE lacks the new table")
		}
	})
}
