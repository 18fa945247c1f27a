package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// TestMaskFlowsAndScrub: on SQLite, a masked column handed to a table
// function masks every column and the model reads why; a plain read says
// nothing more; the statistics catalogs are refused only on a source with
// masks; and a view that renames a masked column, which the statement
// rule cannot see, reaches the model scrubbed, with the token the column's
// own rows have.
func TestMaskFlowsAndScrub(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, name text, email text)",
		"INSERT INTO customers VALUES (1, 'Ann', 'ann.flow@example.com'), (2, 'Bob', 'bob.flow@example.com')",
		"CREATE INDEX customers_email ON customers(email)",
		"CREATE VIEW contacts AS SELECT id, email AS contact FROM customers",
		"ANALYZE",
	)
	plain := NewSet(openDB(t, src, engine.Options{}), nil)
	if res := execSQL(t, plain, "SELECT * FROM sqlite_stat1"); res.Status != engine.StatusSuccess {
		t.Errorf("without masks, sqlite_stat1 is read: %s %s", res.Status, res.Error)
	}

	src.Mask = []string{"customers.email"}
	s := NewSet(openDB(t, src, engine.Options{}), nil)
	ctx := context.Background()
	model := func(sql string) string {
		t.Helper()
		return s.Scrub(ctx, modelJSON(t, s, execSQL(t, s, sql)), true)
	}

	flow := model("SELECT c.name, j.value FROM customers c, json_each(json_array(c.email)) j")
	if strings.Contains(flow, "Ann") || !strings.Contains(flow, `"masked":"email is masked: select it to get tokens`) {
		t.Errorf("a masked column in FROM: want every column masked and why, got %s", flow)
	}
	if got := model("SELECT name FROM customers WHERE email IS NOT NULL ORDER BY email"); !strings.Contains(got, "Ann") || strings.Contains(got, `"masked"`) {
		t.Errorf("IS NOT NULL and ORDER BY: want the names and no reason, got %s", got)
	}
	if res := execSQL(t, s, "SELECT * FROM main.sqlite_stat1"); res.Status != engine.StatusRejected || !strings.Contains(res.Error, "sqlite_stat1") {
		t.Errorf("with masks, sqlite_stat1: want rejected with a sentence, got %s %q", res.Status, res.Error)
	}

	own := model("SELECT email FROM customers WHERE id = 1")
	view := model("SELECT contact, upper(contact) AS up FROM contacts WHERE id = 1")
	for _, v := range []string{"ann.flow@example.com", "ANN.FLOW@EXAMPLE.COM"} {
		if strings.Contains(view, v) {
			t.Errorf("the view showed %q: %s", v, view)
		}
	}
	tok := maskTokenRe.FindString(own)
	if tok == "" || strings.Count(view, tok) != 2 {
		t.Errorf("the view's values: want the column's token %q for both, got %s", tok, view)
	}
}
