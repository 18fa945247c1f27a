package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

var maskTokenRe = regexp.MustCompile(`<masked:email:[0-9a-f]{12,}>`)

// modelJSON is what the model reads of a result.
func modelJSON(t *testing.T, s *Set, res any) string {
	t.Helper()
	if r, ok := res.(*engine.StatementResult); ok {
		res = s.ModelView(r)
	}
	// As the conversation sends it: without HTML escapes.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// TestMaskedColumns: on every engine, the model's view of rows, of
// profile_column and of a chart holds tokens, never a masked value; the
// editor's rows hold the values; count(distinct) passes through; a token
// as a string literal finds its row through a bound parameter; a token in
// a longer string or from another session is refused; and
// two sessions give the same value different tokens.
func TestMaskedColumns(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src,
			"CREATE TABLE customers (id int PRIMARY KEY, email varchar(100), phone varchar(30), city varchar(30))",
			"INSERT INTO customers (id, email, phone, city) VALUES (1, 'ann@example.com', '555-0101', 'Oslo'), "+
				"(2, 'bob@example.com', '555-0102', 'Oslo'), (3, 'ann@example.com', NULL, 'Rome')",
		)
		src.Mask = []string{"customers.email", "customers.phone"}
		src.MaskPattern = []string{"*ssn*"}
		db := openDB(t, src, engine.Options{})
		s := NewSet(db, nil)
		secrets := []string{"ann@example.com", "bob@example.com", "555-0101", "555-0102"}
		noSecret := func(what, text string) {
			t.Helper()
			for _, v := range secrets {
				if strings.Contains(text, v) {
					t.Errorf("%s shows the masked value %q: %s", what, v, text)
				}
			}
		}

		res := execSQL(t, s, "SELECT id, email, phone, city, 'x' AS my_ssn_no FROM customers ORDER BY id")
		wantStatus(t, res, engine.StatusSuccess)
		view := modelJSON(t, s, res)
		noSecret("the model's rows", view)
		if !strings.Contains(view, "Oslo") || strings.Contains(view, `"x"`) {
			t.Errorf("the model's rows %s: want city unmasked and my_ssn_no masked by the pattern", view)
		}
		if res.Rows[0][1] != "ann@example.com" || res.Rows[1][2] != "555-0102" {
			t.Errorf("the editor's rows %v lost the real values", res.Rows)
		}
		if editor := mustJSON(t, res.Full()); !strings.Contains(editor, "bob@example.com") {
			t.Errorf("the editor's view %s lacks the real value", editor)
		}
		var m struct{ Rows [][]any }
		if err := json.Unmarshal([]byte(view), &m); err != nil || len(m.Rows) != 3 {
			t.Fatalf("model view %s: %v", view, err)
		}
		ann, bob := m.Rows[0][1].(string), m.Rows[1][1].(string)
		if !maskTokenRe.MatchString(ann) || ann != m.Rows[2][1] || ann == bob || m.Rows[2][2] != nil {
			t.Errorf("tokens %v: want one stable token per value, NULL kept", m.Rows)
		}

		// A masked column under another name, in an expression, a CTE,
		// a subquery or a set operation.
		for _, q := range []string{
			"SELECT email AS e FROM customers",
			"SELECT upper(email) FROM customers",
			"WITH x AS (SELECT email AS e FROM customers) SELECT e FROM x",
			"SELECT e FROM (SELECT email e FROM customers) s",
			"SELECT city FROM customers UNION SELECT email FROM customers",
			"SELECT min(phone) AS first FROM customers",
			map[string]string{"postgres": "SELECT c FROM customers c"}[e.name], // a whole row
		} {
			if q == "" {
				continue
			}
			r := execSQL(t, s, q)
			wantStatus(t, r, engine.StatusSuccess)
			if v := modelJSON(t, s, r); !strings.Contains(v, "<masked:") {
				t.Errorf("%s: the model's rows %s hold no token", q, v)
			}
			noSecret(q, modelJSON(t, s, r))
		}
		upper := execSQL(t, s, "SELECT upper(email) AS u FROM customers ORDER BY id")
		if editor := mustJSON(t, upper.Full()); !strings.Contains(editor, "BOB@EXAMPLE.COM") {
			t.Errorf("the editor's view %s lacks the real value", editor)
		}

		agg := execSQL(t, s, "SELECT count(DISTINCT email) AS n FROM customers")
		if v := modelJSON(t, s, agg); !strings.Contains(v, "[[2]]") {
			t.Errorf("count(distinct email) for the model: %s, want 2", v)
		}

		found := execSQL(t, s, "SELECT id, city FROM customers WHERE email = '"+bob+"'")
		wantStatus(t, found, engine.StatusSuccess)
		if len(found.Rows) != 1 || count(found.Rows[0][0]) != 2 {
			t.Errorf("the token round trip found %v, want the row of id 2", found.Rows)
		}
		if v := modelJSON(t, s, found); !strings.Contains(v, "Oslo") || strings.Count(v, "<masked:") != 0 {
			t.Errorf("the model's view %s of a row found by a token: want its columns shown", v)
		}
		if found.SQL != "SELECT id, city FROM customers WHERE email = '"+bob+"'" {
			t.Errorf("the statement shown is %q, want the model's text with its token", found.SQL)
		}

		for _, bad := range []string{
			"SELECT id FROM customers WHERE email LIKE '%" + bob + "%'",
			"SELECT id FROM customers WHERE email = '<masked:email:0123456789ab>'",
			"SELECT id FROM customers WHERE email = " + bob,
		} {
			r := execSQL(t, s, bad)
			wantStatus(t, r, engine.StatusRejected)
			noSecret("a refusal", modelJSON(t, s, r)+r.Error)
		}

		prof := runTool(t, s, ToolProfileColumn, `{"table": "customers", "column": "email"}`)
		pv := modelJSON(t, s, prof)
		noSecret("profile_column", pv)
		if !strings.Contains(pv, ann) || !strings.Contains(pv, `"distinct":2`) {
			t.Errorf("profile_column %s: want the tokens and the distinct count", pv)
		}
		if p := runTool(t, s, ToolProfileColumn, `{"table": "customers", "column": "city"}`); !strings.Contains(modelJSON(t, s, p), "Oslo") {
			t.Errorf("an unmasked column's profile lost its values: %s", modelJSON(t, s, p))
		}

		wantStatus(t, execSQL(t, s, "SELECT email, count(*) AS n FROM customers GROUP BY email ORDER BY email"), engine.StatusSuccess)
		chart := runTool(t, s, ToolRenderChart, `{"chart_type": "bar", "x": "email", "y": "n"}`)
		noSecret("render_chart", modelJSON(t, s, chart))

		wantStatus(t, execSQL(t, s, "SELECT email AS e, count(*) AS n FROM customers GROUP BY email ORDER BY email"), engine.StatusSuccess)
		aliased := runTool(t, s, ToolRenderChart, `{"chart_type": "bar", "x": "e", "y": "n"}`)
		if v := modelJSON(t, s, aliased); !strings.Contains(v, "<masked:e:") {
			t.Errorf("render_chart over email AS e: %s, want tokens as labels", v)
		}
		noSecret("render_chart over email AS e", modelJSON(t, s, aliased))

		if e.name == "postgres" {
			// The database quotes the value it could not cast in its error.
			failed := execSQL(t, s, "SELECT id FROM customers WHERE email::int = 1")
			wantStatus(t, failed, engine.StatusError)
			noSecret("the model's error", modelJSON(t, s, failed))
			if !strings.Contains(failed.Error, "@example.com") {
				t.Errorf("the editor's error %q lost the value", failed.Error)
			}
		}

		other := NewSet(db, nil)
		again := execSQL(t, other, "SELECT email FROM customers WHERE id = 2")
		if v := modelJSON(t, other, again); strings.Contains(v, bob) || !maskTokenRe.MatchString(v) {
			t.Errorf("another session's token for the same value: %s, want a different token (was %s)", v, bob)
		}
		wantStatus(t, execSQL(t, other, "SELECT id FROM customers WHERE email = '"+bob+"'"), engine.StatusRejected)
	})
}

// TestMaskedTokenInWrite: on every engine, a write that names its rows by
// a token runs with the value bound, after a confirmation that shows the
// statement as written and, for the user only, the value of its token
// (once, however often it appears), and its dry run counts the rows the
// bound statement changes.
func TestMaskedTokenInWrite(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src,
			"CREATE TABLE customers (id int PRIMARY KEY, email varchar(100), note varchar(30))",
			"INSERT INTO customers (id, email, note) VALUES (1, 'ann@example.com', 'a'), (2, 'bob@example.com', 'b'), (3, 'ann@example.com', 'c')",
		)
		src.Mask = []string{"customers.email"}
		db := openDB(t, src, engine.Options{})
		var asked []guard.ConfirmRequest
		s := NewSet(db, func(_ context.Context, req guard.ConfirmRequest) (guard.Decision, error) {
			asked = append(asked, req)
			return AllowOnce, nil
		})
		var m struct{ Rows [][]any }
		if err := json.Unmarshal([]byte(modelJSON(t, s, execSQL(t, s, "SELECT id, email FROM customers ORDER BY id"))), &m); err != nil || len(m.Rows) != 3 {
			t.Fatalf("the model's rows: %v %v", m.Rows, err)
		}
		ann := m.Rows[0][1].(string)
		if !maskTokenRe.MatchString(ann) {
			t.Fatalf("the model's rows %v hold no token", m.Rows)
		}

		update := "UPDATE customers SET note = 'x' WHERE email = '" + ann + "' OR email = '" + ann + "'"
		res := execSQL(t, s, update)
		wantStatus(t, res, engine.StatusSuccess)
		if len(asked) != 1 || asked[0].SQL != update {
			t.Fatalf("the confirmations %+v, want one showing %q", asked, update)
		}
		if want := []guard.MaskedValue{{Token: ann, Value: "ann@example.com"}}; fmt.Sprint(asked[0].Masked) != fmt.Sprint(want) {
			t.Errorf("the confirmation's masked values %v, want %v", asked[0].Masked, want)
		}
		if asked[0].DryRun != engine.DryRunOK || asked[0].AffectedRows == nil || *asked[0].AffectedRows != 2 {
			t.Errorf("the dry run %q %v %q, want 2 rows counted", asked[0].DryRun, asked[0].AffectedRows, asked[0].DryRunReason)
		}
		if res.RowCount != 2 || res.SQL != update {
			t.Errorf("the update: %d rows, sql %q; want 2 and the statement as written", res.RowCount, res.SQL)
		}
		notes := execSQL(t, s, "SELECT id, note FROM customers ORDER BY id")
		if got := fmt.Sprint(notes.Rows); got != "[[1 x] [2 b] [3 x]]" {
			t.Errorf("the notes after the update: %s, want ann's two rows changed", got)
		}
		if strings.Contains(modelJSON(t, s, res), "ann@example.com") {
			t.Errorf("the update's result for the model shows the value: %s", modelJSON(t, s, res))
		}
	})
}

// TestMaskBind: which tokens are bound, and what is refused.
func TestMaskBind(t *testing.T) {
	m := &guard.Masker{Key: []byte("k"), Names: map[string]bool{"email": true}, Values: map[string]any{}}
	tok := m.Token("email", "a@b").(string)
	for _, tt := range []struct {
		sql, want string
		d         sqltext.Dialect
		ok        bool
	}{
		{"SELECT 1 WHERE e = '" + tok + "' AND f = 'it''s'", "SELECT 1 WHERE e = ? AND f = 'it''s'", sqltext.DialectSQLite, true},
		{"SELECT 1 WHERE e IN ('" + tok + "', '" + tok + "')", "SELECT 1 WHERE e IN ($1, $2)", sqltext.DialectPostgres, true},
		{"SELECT \"'\" FROM t WHERE e = '" + tok + "' -- it's", "SELECT \"'\" FROM t WHERE e = ? -- it's", sqltext.DialectMySQL, true},
		{"SELECT 1 -- '" + tok + "'", "", sqltext.DialectSQLite, false},
		{"SELECT 1 /* " + tok + " */", "", sqltext.DialectSQLite, false},
		{"SELECT \"" + tok + "\"", "", sqltext.DialectSQLite, false},
		{"SELECT 1 WHERE e = '" + tok + "' AND f = ?", "", sqltext.DialectSQLite, false},
		{"SELECT 1 WHERE e = E'\\'' OR e = '" + tok + "'", "", sqltext.DialectPostgres, false},
		{"SELECT 1 WHERE e = $$x$$ OR e = '" + tok + "'", "", sqltext.DialectPostgres, false},
		{"SELECT 1 WHERE e = 'x" + tok + "'", "", sqltext.DialectSQLite, false},
	} {
		got, args, err := m.Bind(tt.sql, tt.d)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("bind(%q) = %q, %v, %v; want %q, ok %v", tt.sql, got, args, err, tt.want, tt.ok)
		}
		if err == nil && (len(args) == 0 || args[0] != "a@b") {
			t.Errorf("bind(%q) args %v, want a@b", tt.sql, args)
		}
	}
	if (*guard.Masker)(nil).Masks("email") {
		t.Error("a nil Masker masks")
	}
}

// TestMaskedColumnsByStatement: which result columns the statement's text
// masks, beyond their names: a masked column under another name, in an
// expression, a CTE, a subquery or a set operation is masked; a count of
// it, and a column beside a masked column in WHERE, are not.
func TestMaskedColumnsByStatement(t *testing.T) {
	m := guard.NewMasker(sessionio.Source{Type: sessionio.TypeSQLite, Mask: []string{"customers.email"}, MaskPattern: []string{"*ssn*"}})
	tok := m.Token("email", "ann@example.com").(string)
	for _, tt := range []struct {
		sql     string
		columns []string
		want    string // one letter a column: m masked, - shown
	}{
		{"SELECT id, email FROM customers", []string{"id", "email"}, "-m"},
		{"SELECT * FROM customers", []string{"id", "name", "email"}, "--m"},
		{"SELECT email AS e FROM customers", []string{"e"}, "m"},
		{`SELECT "Email" e, id FROM customers`, []string{"e", "id"}, "m-"},
		{"SELECT c.email e, id FROM customers c", []string{"e", "id"}, "m-"},
		{"SELECT upper(email) FROM customers", []string{"upper(email)"}, "m"},
		{"SELECT min(email) AS first, count(*) AS n FROM customers", []string{"first", "n"}, "m-"},
		{"SELECT substr(email, 1, 3) AS s, name FROM customers", []string{"s", "name"}, "m-"},
		{"WITH x AS (SELECT email AS e FROM customers) SELECT e FROM x", []string{"e"}, "m"},
		{"WITH x AS (SELECT email AS e FROM customers) SELECT count(DISTINCT e) AS n, max(e) AS top FROM x", []string{"n", "top"}, "mm"},
		{"SELECT e FROM (SELECT email e FROM customers) s", []string{"e"}, "m"},
		{"SELECT name FROM customers UNION SELECT email FROM customers", []string{"name"}, "m"},
		{"SELECT count(*) FROM customers UNION ALL SELECT email FROM customers", []string{"count(*)"}, "m"},
		{"SELECT count(email) AS n, count(DISTINCT email) FROM customers", []string{"n", "count(DISTINCT email)"}, "--"},
		{"SELECT name FROM customers WHERE email = 'x' ORDER BY email", []string{"name"}, "m"},
		{"SELECT name FROM customers WHERE email IS NOT NULL ORDER BY c.email DESC, name", []string{"name"}, "-"},
		{"SELECT name, count(*) FROM customers GROUP BY email, name HAVING count(email) > 1", []string{"name", "count(*)"}, "--"},
		{"SELECT name FROM customers WHERE email IN ('" + tok + "', '" + tok + "')", []string{"name"}, "-"},
		{"SELECT name FROM customers c WHERE '" + tok + "' = c.email", []string{"name"}, "-"},
		{"SELECT x FROM customers c, json_each(json_array(c.email, c.phone)) j", []string{"x"}, "m"},
		{"SELECT string_agg(g.ch, '' ORDER BY i) AS s FROM customers c, generate_series(1,40) i, " +
			"(SELECT chr(n) AS ch FROM generate_series(32,126) n) g WHERE c.id = 1 AND substr(c.email, i, 1) = g.ch", []string{"s"}, "m"},
		{"SELECT name FROM customers ORDER BY substr(email, 1, 1)", []string{"name"}, "m"},
		{"SELECT x FROM (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY email) AS x FROM customers) s", []string{"x"}, "m"},
		{"SELECT name FROM customers WHERE length(email) > 10", []string{"name"}, "m"},
		{"SELECT c.name FROM customers c JOIN orders o ON o.email = c.email", []string{"name"}, "m"},
		{"SELECT name FROM customers WHERE email = '" + tok + "'", []string{"name"}, "-"},
		{"SELECT '" + tok + "' AS v", []string{"v"}, "m"},
		{"SELECT v FROM (SELECT '" + tok + "' AS v) s", []string{"v"}, "m"},
		{"SELECT 'email' AS x, name -- email\nFROM customers", []string{"x", "name"}, "--"},
		{"SELECT my_ssn_no AS x, name FROM people", []string{"x", "name"}, "m-"},
		{"SELECT *, upper(email) AS u FROM customers", []string{"id", "name", "email", "u"}, "mmmm"},
		{"SELECT * FROM customers WHERE email = '" + tok + "'", []string{"id", "name", "email"}, "--m"},
		{"SELECT e FROM customers c(i, n, e)", []string{"e"}, "m"},
		{"WITH x(i, n, e) AS (SELECT * FROM customers) SELECT e FROM x", []string{"e"}, "m"},
		{"SELECT 1, 'a', 'b' UNION ALL SELECT * FROM customers", []string{"1", "'a'", "'b'"}, "mmm"},
		{"SELECT name, row_to_json(c.*) AS j FROM customers c", []string{"name", "j"}, "-m"},
		{"SELECT CAST(price AS decimal(10, 2)) AS p, name FROM products", []string{"p", "name"}, "--"},
		{"SELECT name FROM customers UNION SELECT city FROM shops", []string{"name"}, "-"},
		{"UPDATE customers SET note = 'x' WHERE email = '" + tok + "' RETURNING id", []string{"id"}, "m"},
		{"SELECT name, email FROM customers", []string{"name"}, "m"},
		{"SELECT name FROM customers WHERE id IN (SELECT id FROM customers WHERE email LIKE 'a%')", []string{"name"}, "m"},
		{"SELECT count(*) AS n FROM (SELECT email FROM customers) s", []string{"n"}, "m"},
		{"SELECT count(*) AS n FROM (SELECT 1 FROM customers GROUP BY email) s", []string{"n"}, "-"},
		{"SELECT DISTINCT ON (email) name FROM customers", []string{"name"}, "m"},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t", []string{"n"}, "m"},
		{"SELECT name FROM customers WHERE email = (SELECT 'x')", []string{"name"}, "m"},
	} {
		got := ""
		for _, masked := range m.MaskedColumns(tt.sql, tt.columns) {
			got += map[bool]string{true: "m", false: "-"}[masked]
		}
		if got != tt.want {
			t.Errorf("%q: masked %q, want %q", tt.sql, got, tt.want)
		}
	}

	// PostgreSQL: a whole-row reference holds the masked column's
	// values under the table's or alias's name.
	pg := guard.NewMasker(sessionio.Source{Type: sessionio.TypePostgreSQL, Mask: []string{"customers.email"}})
	pgTok := pg.Token("email", "ann@example.com").(string)
	for _, tt := range []struct {
		sql, want string
	}{
		{"SELECT c, name FROM customers c", "m-"},
		{"SELECT row_to_json(c) AS j, name FROM customers AS c", "m-"},
		{"SELECT customers::text AS t, name FROM public.customers", "m-"},
		{"SELECT o.id, name FROM orders o JOIN customers c ON c.id = o.customer_id", "--"},
		{"SELECT x.id, x.name FROM customers x, orders o WHERE o.customer_id = x.id", "--"},
		{"SELECT (SELECT to_json(c) FROM customers c LIMIT 1) AS j, count(*) AS n FROM orders", "mm"},
		{"SELECT j.value AS a, 1 AS b FROM customers c, jsonb_each_text(to_jsonb(c)) j", "mm"},
		{"SELECT x AS a, 1 AS b FROM customers CROSS JOIN LATERAL upper(email) AS x", "mm"},
		{"SELECT count(c) AS a, 1 AS b FROM customers c", "--"},
		{"SELECT reverse(x) AS a, 1 AS b FROM customers, tricks.count(email) x", "mm"},
		{"SELECT table_to_xml('customers', true, false, '') AS a, 1 AS b", "mm"},
		{`SELECT reverse(U&"\0065mail") AS a, 1 AS b FROM customers`, "m-"},
		{`SELECT 1 AS a, 2 AS b FROM customers WHERE U&"\0065mail" LIKE 'a%'`, "mm"},
		{"SELECT query_to_xml('select * from customers', true, true, '') AS a, 1 AS b", "mm"},
		{"SELECT c.*::text AS t, name FROM customers c", "m-"},
		{"SELECT extract(year FROM d) AS y, d FROM events WHERE a IS DISTINCT FROM b", "--"},
		// Derived tables: whatever their output can carry, their alias
		// carries as a whole row, at any depth.
		{"SELECT reverse(x::text) AS a, 1 AS b FROM (SELECT * FROM customers) x", "m-"},
		{"SELECT reverse(x::text) AS a, 1 AS b FROM (TABLE customers) x", "m-"},
		{"SELECT reverse(x::text) AS a, 1 AS b FROM LATERAL (SELECT * FROM customers) x", "m-"},
		{"SELECT reverse(x::text) AS a, c.id AS b FROM customers c JOIN LATERAL (SELECT c.*) x ON true", "m-"},
		{"SELECT reverse(row_to_json(x)::text) AS a, 1 AS b FROM (SELECT * FROM customers) x", "m-"},
		{"SELECT encode(convert_to(x::text, 'UTF8'), 'base64') AS a, 1 AS b FROM (SELECT * FROM customers) AS x", "m-"},
		{"SELECT upper(to_json(x)::text) AS a, 1 AS b FROM orders o, (SELECT * FROM customers) x", "m-"},
		{"SELECT upper(ROW(x.*)::text) AS a, 1 AS b FROM (SELECT * FROM customers) x", "m-"},
		{"SELECT 1 AS a, 2 AS b FROM (SELECT * FROM customers) x WHERE x > ROW(1, 'a', 'b')", "mm"},
		{"SELECT reverse(y::text) AS a, 1 AS b FROM (SELECT x FROM (SELECT * FROM customers) x) y", "mm"},
		{"SELECT reverse(y::text) AS a, 1 AS b FROM (SELECT * FROM (SELECT * FROM customers) x) y", "m-"},
		{"SELECT reverse(x::text) AS a, 1 AS b FROM (VALUES (1, '" + pgTok + "')) x", "mm"},
		{"SELECT reverse(j::text) AS a, 1 AS b FROM customers c CROSS JOIN LATERAL jsonb_populate_record(null::customers, to_jsonb(c.*)) j", "mm"},
		{"SELECT reverse(c::text) AS a, 1 AS b FROM (customers c JOIN orders o ON true)", "m-"},
		{"WITH x AS (SELECT * FROM customers) SELECT reverse(x::text) AS a, 1 AS b FROM x", "mm"},
		{"WITH x(i, n, e) AS (SELECT * FROM customers) SELECT reverse(x::text) AS a, 1 AS b FROM x", "mm"},
		{"SELECT reverse((SELECT * FROM emails LIMIT 1)) AS a, 1 AS b", "mm"},
		{"SELECT upper(v) AS a, 1 AS b FROM unnest(ARRAY(SELECT * FROM emails)) v", "mm"},
		{"SELECT reverse(x::text) AS a, 1 AS b FROM (SELECT 1 AS n) x", "--"},
		{"SELECT x.id AS a, x.name AS b FROM (SELECT * FROM customers) x", "--"},
		{"SELECT 1 AS a, 2 AS b FROM customers WHERE EXISTS (SELECT * FROM orders)", "--"},
	} {
		got := ""
		for _, masked := range pg.MaskedColumns(tt.sql, []string{"a", "b"}) {
			got += map[bool]string{true: "m", false: "-"}[masked]
		}
		if got != tt.want {
			t.Errorf("PostgreSQL %q: masked %q, want %q", tt.sql, got, tt.want)
		}
	}

	// MySQL: a double-quoted "email" is a string by default and a name
	// with ANSI_QUOTES, so it masks; executable comments mask all.
	my := guard.NewMasker(sessionio.Source{Type: sessionio.TypeMySQL, Mask: []string{"customers.email"}})
	for _, tt := range []struct {
		sql  string
		want bool
	}{
		{`SELECT "email" AS x FROM customers`, true},
		{`SELECT "it's" AS x FROM customers`, false},
		{"SELECT /*+ MAX_EXECUTION_TIME(100) */ name AS x FROM customers", true},
		{"SELECT name AS x FROM customers WHERE email = 'a'", true},
		{"SELECT x FROM customers c, JSON_TABLE(JSON_ARRAY(c.email, c.phone), '$[*]' COLUMNS(x VARCHAR(100) PATH '$')) t", true},
		{"SELECT reverse((SELECT * FROM emails LIMIT 1)) AS x", true},
		{"SELECT x FROM customers WHERE id IN (SELECT * FROM picked)", true},
		{"SELECT reverse(x.e) AS x FROM (SELECT * FROM customers) x(i, n, e)", true},
		{"SELECT reverse(d.e) AS x FROM (SELECT email AS e FROM customers) d", true},
		{"SELECT upper(x.e) AS x FROM ((SELECT email AS e FROM customers) x JOIN orders o ON true)", true},
		{"WITH d AS (SELECT * FROM customers) SELECT upper(d.name) AS x FROM d", false},
		{"SELECT x.name AS x FROM (SELECT * FROM customers) x", false},
	} {
		if got := my.MaskedColumns(tt.sql, []string{"x"})[0]; got != tt.want {
			t.Errorf("MySQL %q: masked %v, want %v", tt.sql, got, tt.want)
		}
	}
}

// TestRedactValues: every value a database error quotes is hidden, and
// the rest of the sentence kept.
func TestRedactValues(t *testing.T) {
	for in, want := range map[string]string{
		`ERROR: invalid input syntax for type integer: "ann@example.com" (SQLSTATE 22P02)`:              `ERROR: invalid input syntax for type integer: "<masked>" (SQLSTATE 22P02)`,
		`Error 1062 (23000): Duplicate entry 'ann@example.com' for key 'email'`:                         `Error 1062 (23000): Duplicate entry '<masked>'`,
		`Error 1062 (23000): Duplicate entry 'o'brien.zx4@example.net' for key 'email'`:                 `Error 1062 (23000): Duplicate entry '<masked>'`,
		`invalid input syntax for type integer: "say "hi" (o'brien)"` + "\nLINE 1: SELECT y::int":       `invalid input syntax for type integer: "<masked>"`,
		`Key (email)=(a) b (c)) already exists.`:                                                        `Key (email)=(<masked>) already exists.`,
		`duplicate key value violates unique constraint; Key (email)=(ann@example.com) already exists.`: `duplicate key value violates unique constraint; Key (email)=(<masked>) already exists.`,
		`no such column: emial`: `no such column: emial`,
		// What an attacker found: a value between new lines left one
		// quote on each line, which a line-by-line redaction kept.
		"ERROR: invalid input syntax for type integer: \"\nmoc.elpmaxe@7setuor.nna\n\" (SQLSTATE 22P02)": `ERROR: invalid input syntax for type integer: "<masked>" (SQLSTATE 22P02)`,
		"bad JSON path: 'ann.routes7\n@example.com'":                                                     `bad JSON path: '<masked>'`,
		// And values printed bare, whose digits rebuild them.
		"ERROR: date out of range: 123456789-01-01 (SQLSTATE 22008)":         "ERROR: date out of range: <masked> (SQLSTATE 22008)",
		"ERROR: time field value out of range: 25:01:01 (SQLSTATE 22008)":    "ERROR: time field value out of range: <masked> (SQLSTATE 22008)",
		"requested character too large for encoding: 123456789":              "requested character too large for encoding: <masked>",
		"Error 1690 (22003): BIGINT value is out of range in '(1 + 2)'":      "Error 1690 (22003): BIGINT value is out of range in '<masked>'",
		"invalid XML document\nDETAIL: line 1: Start tag expected\nann@x.io": "invalid XML document",
		"Key (email)=(ann\n@example.com) already exists.":                    `Key (email)=(<masked>) already exists.`,
	} {
		if got := guard.RedactValues(in); got != want {
			t.Errorf("redactValues(%q) = %q, want %q", in, got, want)
		}
	}
}
