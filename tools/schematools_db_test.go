package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// runTool runs a tool of s and fails the test on an error.
func runTool(t *testing.T, s *Set, tool, args string) any {
	t.Helper()
	out, err := s.Run(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return out
}

// oddQuoted is the table "Odd Name" as the dialect quotes it.
func oddQuoted(d sqltext.Dialect) string {
	if d == sqltext.DialectMySQL {
		return "`Odd Name`"
	}
	return `"Odd Name"`
}

func TestDescribeTables(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		_, db := shopSchema(t, e)
		s := NewSet(db, nil)
		cards, ok := runTool(t, s, ToolDescribeTable, `{"tables":["orders","customers","orders"]}`).(*TableCards)
		if !ok || len(cards.Tables) != 2 || len(cards.NotFound) != 0 {
			t.Fatalf("describe_table orders, customers = %+v", cards)
		}
		if !strings.HasPrefix(cards.Tables[0], "table orders") || !strings.Contains(cards.Tables[1], "referenced by: orders(customer_id) -> (id)") {
			t.Errorf("cards =\n%s", strings.Join(cards.Tables, "\n"))
		}
		if want := "orders: 5 columns, PK id, 1 foreign key; customers: 4 columns, PK id, 1 foreign key, ~3 rows"; !strings.HasPrefix(cards.Summary(), "orders: 5 columns, PK id, 1 foreign key") ||
			!strings.HasSuffix(cards.Summary(), "customers: 4 columns, PK id, 1 foreign key, ~3 rows") {
			t.Errorf("summary = %q, want %q", cards.Summary(), want)
		}

		missing := runTool(t, s, ToolDescribeTable, `{"table":"order"}`).(*TableCards)
		if len(missing.Tables) != 0 || len(missing.NotFound) != 1 || !strings.HasPrefix(missing.NotFound[0], "no table `order`; did you mean `orders`") {
			t.Errorf("describe_table order = %+v, want a did-you-mean", missing)
		}
		nothing := runTool(t, s, ToolDescribeTable, `{"table":"zzzz"}`).(*TableCards)
		if len(nothing.NotFound) != 1 || !strings.Contains(nothing.NotFound[0], "search_schema") {
			t.Errorf("describe_table zzzz = %+v, want a pointer to search_schema", nothing)
		}

		// Names that need quotes round-trip, bare or quoted as the
		// dialect quotes them.
		quoted := oddQuoted(e.dialect)
		for _, name := range []string{"Odd Name", quoted} {
			args, _ := json.Marshal(map[string]string{"table": name})
			odd := runTool(t, s, ToolDescribeTable, string(args)).(*TableCards)
			if len(odd.Tables) != 1 || !strings.HasPrefix(odd.Tables[0], "table "+quoted) {
				t.Errorf("describe_table %s = %+v", name, odd)
			}
		}

		_, err := s.Run(context.Background(), ToolDescribeTable, json.RawMessage(`{"tables":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`))
		if err == nil || !strings.Contains(err.Error(), "up to 20") {
			t.Errorf("21 tables: %v, want an error", err)
		}
	})
}

func TestSearchSchema(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		_, db := shopSchema(t, e)
		s := NewSet(db, nil)
		res := runTool(t, s, ToolSearchSchema, `{"query":"lines"}`).(*SchemaMatches)
		if len(res.Matches) == 0 || res.Matches[0].Table != "order_lines" || !strings.HasPrefix(res.Matches[0].Line, "order_lines(") {
			t.Errorf("search lines = %+v", res)
		}
		if !strings.HasPrefix(res.Summary(), `search "lines": `) {
			t.Errorf("summary = %q", res.Summary())
		}
		res = runTool(t, s, ToolSearchSchema, `{"query":"SELECT"}`).(*SchemaMatches)
		if len(res.Matches) != 1 || res.Matches[0].Columns[0] != "select" {
			t.Errorf("search SELECT = %+v, want the column of Odd Name", res)
		}
		if e.dialect != sqltext.DialectSQLite {
			res = runTool(t, s, ToolSearchSchema, `{"query":"buyers"}`).(*SchemaMatches)
			if len(res.Matches) != 1 || res.Matches[0].Table != "customers" {
				t.Errorf("search buyers = %+v, want customers by its comment", res)
			}
		}
	})
}

func TestProfileColumn(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := shopSchema(t, e)
		odd := oddQuoted(e.dialect)
		dbtest.Exec(t, src, "INSERT INTO "+odd+" VALUES (1, 1, 'Berlin'), (2, 2, 'berlin'), (3, NULL, 'Berlin'), (4, 4, NULL)")
		s := NewSet(db, nil)
		p := runTool(t, s, ToolProfileColumn, `{"table":"Odd Name","column":"bücher"}`).(*ColumnProfile)
		// MariaDB's default collation compares regardless of case: one
		// value, which the profile shows.
		distinct, berlins := int64(2), int64(2)
		if e.dialect == sqltext.DialectMySQL {
			distinct, berlins = 1, 3
		}
		if p.Rows != 4 || p.Distinct != distinct || p.Nulls != 1 || p.NullFraction != 0.25 || p.Sample != "" {
			t.Errorf("profile = %+v", p)
		}
		if len(p.Top) < 2 || p.Top[0].Value != "Berlin" || p.Top[0].Count != berlins {
			t.Errorf("most common = %+v, want Berlin %d times first", p.Top, berlins)
		}
		want := fmt.Sprintf(".bücher: %d distinct, 25%% null, most common 'Berlin' (%d)", distinct, berlins)
		if p.Summary() != p.Table+want || p.Table != oddQuoted(e.dialect) {
			t.Errorf("summary = %q, want %q", p.Summary(), p.Table+want)
		}
		nf := runTool(t, s, ToolProfileColumn, `{"table":"customers","column":"nme"}`).(*NotFound)
		if !strings.HasPrefix(nf.Message, "no column `nme` in customers; did you mean `name`") {
			t.Errorf("unknown column: %q", nf.Message)
		}
		nf = runTool(t, s, ToolProfileColumn, `{"table":"customer","column":"name"}`).(*NotFound)
		if !strings.HasPrefix(nf.Message, "no table `customer`; did you mean `customers`") {
			t.Errorf("unknown table: %q", nf.Message)
		}

		// A table the catalog says is huge is sampled, and the profile
		// says so.
		schema, _ := db.Schema(context.Background())
		big, _ := schema.Lookup("customers")
		big.Rows = 5_000_000
		p = runTool(t, s, ToolProfileColumn, `{"table":"customers","column":"name"}`).(*ColumnProfile)
		if !strings.Contains(p.Sample, "first 100000 rows") || p.Rows != 3 || !strings.Contains(p.Summary(), "sampled 3 rows") {
			t.Errorf("sampled profile = %+v (%s)", p, p.Summary())
		}
		// One of unknown size is read through the same bound, and, all of
		// it fitting, says nothing of a sample.
		big.Rows, big.RowsAtLeast = -1, false
		p = runTool(t, s, ToolProfileColumn, `{"table":"customers","column":"name"}`).(*ColumnProfile)
		if p.Sample != "" || p.Rows != 3 {
			t.Errorf("profile of a small table of unknown size = %+v", p)
		}
	})
}

// explainWrites are writes of every kind, per engine, for explain_sql.
var explainWrites = map[sqltext.Dialect][]string{
	sqltext.DialectPostgres: {"INSERT INTO customers (id, email) VALUES (9, 'z@x')", "UPDATE customers SET name = 'x'", "DELETE FROM customers",
		"WITH gone AS (DELETE FROM customers RETURNING id) SELECT count(*) FROM gone",
		"INSERT INTO customers (id, email) VALUES (1, 'a@x') ON CONFLICT (id) DO UPDATE SET name = 'y'",
		"MERGE INTO customers AS c USING (SELECT 1 AS id) AS s ON c.id = s.id WHEN MATCHED THEN DELETE"},
	sqltext.DialectMySQL: {"INSERT INTO customers (id, email) VALUES (9, 'z@x')", "UPDATE customers SET name = 'x'", "DELETE FROM customers",
		"REPLACE INTO customers (id, email) VALUES (1, 'a@x')", "INSERT INTO customers (id, email) VALUES (1, 'a@x') ON DUPLICATE KEY UPDATE name = 'y'",
		"DELETE c FROM customers AS c JOIN orders AS o ON o.customer_id = c.id"},
	sqltext.DialectSQLite: {"INSERT INTO customers (id, email) VALUES (9, 'z@x')", "UPDATE customers SET name = 'x'", "DELETE FROM customers",
		"REPLACE INTO customers (id, email) VALUES (1, 'a@x')", "INSERT INTO customers (id, email) VALUES (1, 'a@x') ON CONFLICT (id) DO UPDATE SET name = 'y'",
		"WITH x AS (SELECT 1) DELETE FROM customers"},
}

func TestExplainSQL(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := shopSchema(t, e)
		s := NewSet(db, nil)
		data := func() string {
			return strings.Join(dbtest.QueryStrings(t, src, "SELECT count(*) FROM customers",
				"SELECT "+map[sqltext.Dialect]string{sqltext.DialectMySQL: "CONCAT(id, '|', email, '|', coalesce(name, '-'))"}[e.dialect]+
					map[sqltext.Dialect]string{sqltext.DialectPostgres: "id || '|' || email || '|' || coalesce(name, '-')", sqltext.DialectSQLite: "id || '|' || email || '|' || coalesce(name, '-')"}[e.dialect]+
					" FROM customers ORDER BY id"), "\n")
		}
		before := data()
		if !strings.Contains(before, "3\n1|a@x|A") {
			t.Fatalf("customers = %s", before)
		}

		p := runTool(t, s, ToolExplainSQL, `{"sql":"SELECT * FROM orders JOIN customers ON customers.id = orders.customer_id"}`).(*Plan)
		if p.Refused != "" || p.Error != "" || p.Text == "" || !strings.HasPrefix(p.Summary(), "plan: ") {
			t.Fatalf("explain SELECT = %+v", p)
		}
		if e.dialect == sqltext.DialectPostgres && (p.Cost == nil || p.EstimatedRows == nil) {
			t.Errorf("explain on PostgreSQL without cost and rows: %+v", p)
		}
		if e.dialect != sqltext.DialectPostgres && len(p.FullScans) == 0 {
			t.Errorf("explain of a join without a filter shows no full scan: %+v", p)
		}

		for _, w := range explainWrites[e.dialect] {
			args, _ := json.Marshal(map[string]string{"sql": w})
			p := runTool(t, s, ToolExplainSQL, string(args)).(*Plan)
			if p.Refused != "" || p.Error != "" || p.Text == "" {
				t.Errorf("explain %s = %+v", w, p)
			}
			if after := data(); after != before {
				t.Fatalf("explain %s changed the data:\n%s\nwas\n%s", w, after, before)
			}
		}

		for sql, want := range map[string]string{
			"SELECT 1; DELETE FROM customers":       "not explained: ",
			"EXPLAIN ANALYZE DELETE FROM customers": "without EXPLAIN",
			"DROP TABLE customers":                  "this is DROP",
		} {
			args, _ := json.Marshal(map[string]string{"sql": sql})
			p := runTool(t, s, ToolExplainSQL, string(args)).(*Plan)
			if !strings.Contains(p.Refused, want) || p.Text != "" {
				t.Errorf("explain %s = %+v, want it refused (%s)", sql, p, want)
			}
		}
		if after := data(); after != before {
			t.Fatalf("the refused statements changed the data:\n%s", after)
		}
		if !dbtest.TableExists(t, src, "customers") {
			t.Fatal("customers is gone")
		}
	})
}

// TestStoredSummary: a replayed conversation's schema tool results, read
// back from the JSON the model got, have the summaries they had live.
func TestStoredSummary(t *testing.T) {
	_, db := shopSchema(t, testEngines[0])
	s := NewSet(db, nil)
	for _, c := range []struct{ tool, args, want string }{
		{ToolListTables, `{}`, ""},
		{ToolSearchSchema, `{"query":"lines"}`, ""},
		{ToolProfileColumn, `{"table":"customers","column":"name"}`, ""},
		{ToolProfileColumn, `{"table":"customer","column":"name"}`, ""},
		{ToolExplainSQL, `{"sql":"SELECT * FROM orders"}`, ""},
		{ToolExplainSQL, `{"sql":"DROP TABLE orders"}`, ""},
		{ToolDescribeTable, `{"tables":["customers","order"]}`, "customers ~3 rows; no table order"},
	} {
		out := runTool(t, s, c.tool, c.args)
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		want := c.want
		if want == "" {
			want = out.(interface{ Summary() string }).Summary()
		}
		if got, ok := StoredSummary(c.tool, string(data)); !ok || got != want {
			t.Errorf("%s %s: stored summary %q, %v; want %q", c.tool, c.args, got, ok, want)
		}
	}
	if _, ok := StoredSummary(ToolExecuteSQL, `{"status":"error","error":"x"}`); ok {
		t.Error("a statement's error has a stored schema summary")
	}
}

// TestProfileUnknownSize: SQLite without sqlite_stat1 counts a table's rows
// only up to a bound; profile_column reads a table past it through the
// sample's bound, and says so, rather than the whole table.
func TestProfileUnknownSize(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src, "CREATE TABLE big (id integer PRIMARY KEY, v text)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 150000) INSERT INTO big SELECT i, 'v' || (i % 7) FROM c")
	s := NewSet(openDB(t, src, engine.Options{}), nil)
	p := runTool(t, s, ToolProfileColumn, `{"table":"big","column":"v"}`).(*ColumnProfile)
	if p.Rows != profileSampleRows || !strings.Contains(p.Sample, "size the catalog does not know") || p.Distinct != 7 {
		t.Errorf("profile of a table past the count's bound = %+v", p)
	}
}

// TestQuotesInNames: on every engine, tables and columns whose names hold
// both quote characters, spaces, accented letters or are SQL keywords are
// listed, searched, described, profiled, read and explained: every
// statement the tools build quotes them as the engine needs, and the
// name a tool gives back is one the others take.
func TestQuotesInNames(t *testing.T) {
	names := [][2]string{ // table, column
		{"say \"hi\" `now`", "it's \"x\" `y`"},
		{"Café Ventes", "Montant Été"},
		{"select", "order"},
		{"order", "select"},
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		q := &engine.Schema{Dialect: e.dialect}
		for _, n := range names {
			dbtest.Exec(t, src, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, %s varchar(20))", q.Ident(n[0]), q.Ident(n[1])),
				fmt.Sprintf("INSERT INTO %s VALUES (1, 'a'), (2, 'a'), (3, 'b')", q.Ident(n[0])))
		}
		s := NewSet(openDB(t, src, engine.Options{}), nil)
		list, ok := runTool(t, s, ToolListTables, `{}`).(*TableList)
		if !ok {
			t.Fatalf("list_tables: %+v", list)
		}
		for _, n := range names {
			table, column := n[0], n[1]
			quoted := q.Ident(table)
			t.Run(table, func(t *testing.T) {
				// list_tables gives the names as the catalog has them.
				if !slices.Contains(list.Tables, table) {
					t.Errorf("list_tables = %q, want %s among them", list.Tables, table)
				}
				// search_schema finds the table by its name, first, named as
				// the dialect quotes it, with the column.
				found, ok := runTool(t, s, ToolSearchSchema, mustJSON(t, map[string]string{"query": table})).(*SchemaMatches)
				if !ok || len(found.Matches) == 0 || found.Matches[0].Table != quoted ||
					!strings.HasPrefix(found.Matches[0].Line, quoted+"(id ") || !strings.Contains(found.Matches[0].Line, q.Ident(column)+" ") {
					t.Errorf("search_schema %s = %+v", table, found)
				}
				// describe_table takes the name bare, as list_tables gives it,
				// and quoted, as search_schema gives it.
				for _, name := range []string{table, quoted} {
					cards, ok := runTool(t, s, ToolDescribeTable, mustJSON(t, map[string]string{"table": name})).(*TableCards)
					if !ok || len(cards.Tables) != 1 || !strings.HasPrefix(cards.Tables[0], "table "+quoted) ||
						!strings.Contains(cards.Tables[0], q.Ident(column)) || !strings.Contains(cards.Tables[0], "PK") {
						t.Errorf("describe_table %s: %+v", name, cards)
					}
				}
				for _, name := range []string{table, quoted} {
					args := mustJSON(t, map[string]string{"table": name, "column": column})
					p, ok := runTool(t, s, ToolProfileColumn, args).(*ColumnProfile)
					if !ok || p.Rows != 3 || p.Distinct != 2 {
						t.Errorf("profile_column %s: %+v", args, runTool(t, s, ToolProfileColumn, args))
					}
				}
				sql := fmt.Sprintf("SELECT %s FROM %s WHERE id = 1", q.Ident(column), quoted)
				if res := execSQL(t, s, sql); res.Status != engine.StatusSuccess || res.RowCount != 1 ||
					len(res.Columns) != 1 || res.Columns[0] != column || res.Rows[0][0] != "a" {
					t.Errorf("execute_sql %s: %s %s %q %v", sql, res.Status, res.Error, res.Columns, res.Rows)
				}
				if plan, ok := runTool(t, s, ToolExplainSQL, mustJSON(t, map[string]string{"sql": sql})).(*Plan); !ok || plan.Error != "" || plan.Refused != "" || plan.Text == "" {
					t.Errorf("explain_sql %s: %+v", sql, plan)
				}
			})
		}
	})
}
