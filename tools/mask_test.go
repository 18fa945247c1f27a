package tools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

var maskTokenRe = regexp.MustCompile(`<masked:email:[0-9a-f]{12,}>`)

// modelJSON is what the model reads of a result.
func modelJSON(t *testing.T, s *Set, res any) string {
	t.Helper()
	if r, ok := res.(*StatementResult); ok {
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
// a write, in a longer string, or from another session is refused; and
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
		db := openDB(t, src, Options{})
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
		wantStatus(t, res, StatusSuccess)
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

		agg := execSQL(t, s, "SELECT count(DISTINCT email) AS n FROM customers")
		if v := modelJSON(t, s, agg); !strings.Contains(v, "[[2]]") {
			t.Errorf("count(distinct email) for the model: %s, want 2", v)
		}

		found := execSQL(t, s, "SELECT id, city FROM customers WHERE email = '"+bob+"'")
		wantStatus(t, found, StatusSuccess)
		if len(found.Rows) != 1 || count(found.Rows[0][0]) != 2 {
			t.Errorf("the token round trip found %v, want the row of id 2", found.Rows)
		}
		if found.SQL != "SELECT id, city FROM customers WHERE email = '"+bob+"'" {
			t.Errorf("the statement shown is %q, want the model's text with its token", found.SQL)
		}

		for _, bad := range []string{
			"UPDATE customers SET city = 'x' WHERE email = '" + bob + "'",
			"SELECT id FROM customers WHERE email LIKE '%" + bob + "%'",
			"SELECT id FROM customers WHERE email = '<masked:email:0123456789ab>'",
			"SELECT id FROM customers WHERE email = " + bob,
		} {
			r := execSQL(t, s, bad)
			wantStatus(t, r, StatusRejected)
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

		wantStatus(t, execSQL(t, s, "SELECT email, count(*) AS n FROM customers GROUP BY email ORDER BY email"), StatusSuccess)
		chart := runTool(t, s, ToolRenderChart, `{"chart_type": "bar", "x": "email", "y": "n"}`)
		noSecret("render_chart", modelJSON(t, s, chart))

		other := NewSet(db, nil)
		again := execSQL(t, other, "SELECT email FROM customers WHERE id = 2")
		if v := modelJSON(t, other, again); strings.Contains(v, bob) || !maskTokenRe.MatchString(v) {
			t.Errorf("another session's token for the same value: %s, want a different token (was %s)", v, bob)
		}
		wantStatus(t, execSQL(t, other, "SELECT id FROM customers WHERE email = '"+bob+"'"), StatusRejected)
	})
}

// TestMaskBind: which tokens are bound, and what is refused.
func TestMaskBind(t *testing.T) {
	m := &Masker{key: []byte("k"), names: map[string]bool{"email": true}, values: map[string]any{}}
	tok := m.token("email", "a@b").(string)
	for _, tt := range []struct {
		sql, want string
		d         Dialect
		ok        bool
	}{
		{"SELECT 1 WHERE e = '" + tok + "' AND f = 'it''s'", "SELECT 1 WHERE e = ? AND f = 'it''s'", DialectSQLite, true},
		{"SELECT 1 WHERE e IN ('" + tok + "', '" + tok + "')", "SELECT 1 WHERE e IN ($1, $2)", DialectPostgres, true},
		{"SELECT \"'\" FROM t WHERE e = '" + tok + "' -- it's", "SELECT \"'\" FROM t WHERE e = ? -- it's", DialectMySQL, true},
		{"SELECT 1 -- '" + tok + "'", "", DialectSQLite, false},
		{"SELECT 1 /* " + tok + " */", "", DialectSQLite, false},
		{"SELECT \"" + tok + "\"", "", DialectSQLite, false},
		{"SELECT 1 WHERE e = '" + tok + "' AND f = ?", "", DialectSQLite, false},
		{"SELECT 1 WHERE e = E'\\'' OR e = '" + tok + "'", "", DialectPostgres, false},
		{"SELECT 1 WHERE e = $$x$$ OR e = '" + tok + "'", "", DialectPostgres, false},
		{"SELECT 1 WHERE e = 'x" + tok + "'", "", DialectSQLite, false},
	} {
		got, args, err := m.bind(tt.sql, tt.d)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("bind(%q) = %q, %v, %v; want %q, ok %v", tt.sql, got, args, err, tt.want, tt.ok)
		}
		if err == nil && (len(args) == 0 || args[0] != "a@b") {
			t.Errorf("bind(%q) args %v, want a@b", tt.sql, args)
		}
	}
	if (*Masker)(nil).Masks("email") {
		t.Error("a nil Masker masks")
	}
}
