package tools

// Attacks on "Allow always", its row bound, the dry run's counts and the
// cost gate, by a model that controls the SQL. The user allowed always
// "UPDATE orders SET status = 'paid' WHERE id = 7" (one row: a bound of
// 10) and rejects every dialog after it. Each test asserts the secure
// behaviour; a failure is an attack that worked.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// attackOrders creates orders with rows 1..n (status 'new') and the extra
// statements, opens src (after edit, when set), and gives the allowance the
// user gave: "Allow always" to a one-row UPDATE of orders.
func attackOrders(t *testing.T, e testEngine, ordersDDL string, n int, edit func(*sessionio.Source), extra ...string) (sessionio.Source, *Set, *confirmer) {
	t.Helper()
	src := e.source(t)
	if ordersDDL == "" {
		ordersDDL = "CREATE TABLE orders (id integer PRIMARY KEY, status varchar(100) NOT NULL)"
	}
	var vals []string
	for i := 1; i <= n; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 'new')", i))
	}
	dbtest.Exec(t, src, ordersDDL, "INSERT INTO orders (id, status) VALUES "+strings.Join(vals, ", "))
	dbtest.Exec(t, src, extra...)
	if edit != nil {
		edit(&src)
	}
	db := openDB(t, src, engine.Options{})
	c := &confirmer{answers: []guard.Decision{AllowAlways}}
	s := NewSet(db, c.confirm)
	wantStatus(t, execSQL(t, s, "UPDATE orders SET status = 'paid' WHERE id = 7"), engine.StatusSuccess)
	if len(c.requests) != 1 || c.requests[0].Scope != "Allow UPDATE on orders, up to 10 rows at a time, for this conversation" {
		t.Fatalf("requests %+v, want one offering UPDATE on orders up to 10 rows", c.requests)
	}
	return src, s, c
}

// attackRun runs sql as the model, and reports whether the user was asked
// (every answer after the first is Reject) and the result.
func attackRun(t *testing.T, s *Set, c *confirmer, sql string) (bool, *engine.StatementResult) {
	t.Helper()
	n := len(c.requests)
	res := execSQL(t, s, sql)
	if len(c.requests) > n {
		t.Logf("asked: risk %s, dry run %s %q, scope %q", c.requests[n].Risk, c.requests[n].DryRun, c.requests[n].DryRunText(), c.requests[n].Scope)
	}
	return len(c.requests) > n, res
}

// TestAttackAllowCascadeUpdate: an UPDATE of the key of orders cascades
// (ON UPDATE CASCADE) to 30 rows of order_items. MariaDB's dry run counts
// only the rows other tables lose or gain (count(*) before and after), not
// those they change, so "UPDATE orders SET id = 1007 WHERE id = 7" counts
// 1 row and runs under the allowance of 10 while it changes 31 rows
// (ON UPDATE SET NULL, and ON DELETE SET NULL for a DELETE allowance, are
// the same). PostgreSQL counts them (pg_stat n_tup_upd) and asks; SQLite
// runs no cascade (foreign keys off).
func TestAttackAllowCascadeUpdate(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		items := orderItems("ON UPDATE CASCADE")
		src, s, c := attackOrders(t, e, "", 40, nil, items...)
		asked, res := attackRun(t, s, c, "UPDATE orders SET id = 1007 WHERE id = 7")
		moved := dbtest.QueryInt(t, src, "SELECT count(*) FROM order_items WHERE order_id = 1007")
		if !asked && res.Status == engine.StatusSuccess && moved > 0 {
			t.Errorf("ran without a dialog under the 10-row allowance, and changed 1 row of orders and %d of order_items in cascade", moved)
		}
	})
}

// TestAttackAllowSelfCascade: orders.parent_id refers to orders.id ON
// UPDATE CASCADE. The cascade changes rows of the target itself, which
// PostgreSQL's dry run leaves out (pg_stat_xact_user_tables WHERE relid <>
// the target, and the command tag counts the top statement only): one
// UPDATE of one key rewrites 30 other orders without a dialog.
func TestAttackAllowSelfCascade(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ddl := "CREATE TABLE orders (id integer PRIMARY KEY, status varchar(100) NOT NULL, parent_id integer, " +
			"FOREIGN KEY (parent_id) REFERENCES orders (id) ON UPDATE CASCADE)"
		var vals []string
		for i := 100; i < 130; i++ {
			vals = append(vals, fmt.Sprintf("(%d, 'new', 7)", i))
		}
		src, s, c := attackOrders(t, e, ddl, 40, nil, "INSERT INTO orders (id, status, parent_id) VALUES "+strings.Join(vals, ", "))
		asked, res := attackRun(t, s, c, "UPDATE orders SET id = 1007 WHERE id = 7")
		moved := dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE parent_id = 1007")
		if !asked && res.Status == engine.StatusSuccess && moved > 0 {
			t.Errorf("ran without a dialog under the 10-row allowance, and changed %d rows of orders: 1 itself and %d in cascade", moved+1, moved)
		}
		if !asked && res.Status != engine.StatusSuccess {
			t.Logf("not asked, failed: %s", res.Error)
		}
	})
}

// TestAttackAllowHiddenRead: a table in a parenthesized join, FROM
// (customers c CROSS JOIN orders o), is not among the shape's objects
// (readObjects stops at the parenthesis and sees only the table after
// JOIN; nor one after "FROM orders AS o,"; nor PostgreSQL's TABLE
// customers), so an UPDATE that reads customers has the shape "UPDATE on
// orders" and runs under its allowance. It copies customers.secret, a
// masked column, into orders.status, which the model then reads in clear.
func TestAttackAllowHiddenRead(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		mask := func(s *sessionio.Source) { s.Mask = []string{"customers.secret"} }
		src, s, c := attackOrders(t, e, "", 40, mask,
			"CREATE TABLE customers (id integer PRIMARY KEY, secret varchar(100))",
			"INSERT INTO customers (id, secret) VALUES (1, 'ssn-123-45-6789')")
		// The control: the same read, written plainly, asks.
		if asked, _ := attackRun(t, s, c, "UPDATE orders SET status = (SELECT secret FROM customers WHERE id = 1) WHERE id = 7"); !asked {
			t.Fatalf("the plain statement that reads customers did not ask")
		}
		hidden := []string{
			"UPDATE orders SET status = (SELECT c.secret FROM (customers c CROSS JOIN orders o) WHERE c.id = 1 AND o.id = 7) WHERE id = 7",
			// An alias after AS ends the comma list readObjects follows.
			"UPDATE orders SET status = (SELECT c.secret FROM orders AS o, customers c WHERE c.id = 1 AND o.id = 7) WHERE id = 7",
		}
		if e.name == "postgres" {
			// TABLE customers is a query with no FROM.
			hidden = append(hidden, "UPDATE orders SET status = (SELECT x.secret FROM (TABLE customers) x WHERE x.id = 1) WHERE id = 7")
		}
		for _, sql := range hidden {
			dbtest.Exec(t, src, "UPDATE orders SET status = 'paid' WHERE id = 7")
			asked, res := attackRun(t, s, c, sql)
			if !asked {
				t.Errorf("%s: reads customers, and ran under the allowance of UPDATE on orders (status %s %q)", sql, res.Status, res.Error)
				read := execSQL(t, s, "SELECT status FROM orders WHERE id = 7")
				if m := mustJSON(t, s.ModelView(read)); strings.Contains(m, "ssn-123") {
					t.Errorf("and the model reads the masked value in clear: %s", m)
				}
			}
		}
	})
}

// TestAttackAllowCaseFold: MariaDB on Linux keeps table names case
// sensitive (lower_case_table_names = 0): orders and ORDERS are two
// tables. The shape folds unquoted names, so the allowance of UPDATE on
// orders covers an UPDATE of ORDERS, a table the user never allowed, and
// it runs without a dialog.
func TestAttackAllowCaseFold(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.name != "mariadb" {
			return // PostgreSQL folds unquoted names too; SQLite's names ignore case
		}
		src, s, c := attackOrders(t, e, "", 40, nil,
			"CREATE TABLE ORDERS (id integer PRIMARY KEY, status varchar(100) NOT NULL)",
			"INSERT INTO ORDERS (id, status) VALUES (1, 'refund'), (2, 'refund')")
		asked, res := attackRun(t, s, c, "UPDATE ORDERS SET status = 'gone' WHERE id = 1")
		if !asked && res.Status == engine.StatusSuccess {
			t.Errorf("an UPDATE of ORDERS, another table, ran under the allowance of UPDATE on orders: %v",
				dbtest.QueryStrings(t, src, "SELECT CONCAT(id, ' ', status) FROM ORDERS ORDER BY id"))
		}
	})
}

// TestAttackAllowRedactQuote: a masked value that holds a quote escapes
// redactValues, which takes the first closing quote for the end of the
// value: MariaDB's warning "Truncated incorrect DOUBLE value:
// 'O'Brien-ssn-123-45-6789'" reaches the model as "'<masked>'Brien-ssn-...",
// and PostgreSQL's error quotes "O"Brien..." the same way.
func TestAttackAllowRedactQuote(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.name == "sqlite" {
			return // no such warnings
		}
		src := e.source(t)
		dbtest.Exec(t, src, "CREATE TABLE customers (id integer PRIMARY KEY, secret varchar(100))",
			`INSERT INTO customers (id, secret) VALUES (1, 'O''Brien-ssn-123-45-6789'), (2, 'Ann"ssn-987-65-4321')`)
		src.Mask = []string{"customers.secret"}
		db := openDB(t, src, engine.Options{})
		s := NewSet(db, (&confirmer{}).confirm)
		sql := map[string]string{
			"mariadb":  "SELECT count(*) FROM customers WHERE secret + 0 = 1",
			"postgres": "SELECT count(*) FROM customers WHERE id = 2 AND secret::integer = 1",
		}[e.name]
		res := execSQL(t, s, sql)
		m := mustJSON(t, s.ModelView(res))
		if strings.Contains(m, "ssn-123") || strings.Contains(m, "ssn-987") {
			t.Errorf("the model reads part of a masked value: %s", m)
		}
	})
}

// TestAttackAllowStraightJoin: MariaDB's multi-table UPDATE joined with
// STRAIGHT_JOIN, which target() does not take for a JOIN (it looks for
// the word JOIN and a comma), has the shape "UPDATE on orders" and runs
// under its allowance, while it changes customers, a table the user
// never allowed.
func TestAttackAllowStraightJoin(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.name != "mariadb" {
			return
		}
		src, s, c := attackOrders(t, e, "", 40, nil,
			"CREATE TABLE customers (id integer PRIMARY KEY, secret varchar(100))",
			"INSERT INTO customers (id, secret) VALUES (7, 'keep')")
		asked, res := attackRun(t, s, c, "UPDATE orders STRAIGHT_JOIN customers ON customers.id = orders.id SET customers.secret = 'overwritten' WHERE orders.id = 7")
		if !asked && res.Status == engine.StatusSuccess {
			t.Errorf("a multi-table UPDATE ran under the allowance of UPDATE on orders: customers now %v",
				dbtest.QueryStrings(t, src, "SELECT secret FROM customers"))
		}
	})
}

// TestAttackAllowNextValueFor: MariaDB's NEXT VALUE FOR seq takes a value
// of a sequence, a change no rollback undoes, with no parenthesis for
// callsOtherFunction to see: under the allowance of UPDATE on orders, each
// statement advances the sequence without a dialog, in its dry run and
// in its run.
func TestAttackAllowNextValueFor(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.name != "mariadb" {
			return
		}
		src, s, c := attackOrders(t, e, "", 40, nil, "CREATE SEQUENCE invoice_no START WITH 1000")
		asked, res := attackRun(t, s, c, "UPDATE orders SET status = CONCAT('inv-', NEXT VALUE FOR invoice_no) WHERE id = 7")
		if !asked && res.Status == engine.StatusSuccess {
			t.Errorf("NEXT VALUE FOR ran under the allowance; the sequence is now at %v, the order %v",
				dbtest.QueryStrings(t, src, "SELECT NEXT VALUE FOR invoice_no"), dbtest.QueryStrings(t, src, "SELECT status FROM orders WHERE id = 7"))
		}
	})
}

// TestAttackAllowSelfCascadeDelete: tree.parent_id refers to tree.id ON
// DELETE CASCADE, and row 7 has 30 children. MariaDB's dry run counted
// the statement's own row and the other tables' losses, never the
// target's own: "DELETE FROM tree WHERE id = 7" was 1 row, and an
// allowance of DELETE bounded to 10 rows removed 31 without a dialog.
// The dry run now says 31 on every engine that cascades, and the
// allowance asks.
func TestAttackAllowSelfCascadeDelete(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		vals := []string{"(1, NULL)", "(7, NULL)"}
		for i := 100; i < 130; i++ {
			vals = append(vals, fmt.Sprintf("(%d, 7)", i))
		}
		dbtest.Exec(t, src, "CREATE TABLE tree (id integer PRIMARY KEY, parent_id integer, "+
			"FOREIGN KEY (parent_id) REFERENCES tree (id) ON DELETE CASCADE)",
			"INSERT INTO tree (id, parent_id) VALUES "+strings.Join(vals, ", "))
		db := openDB(t, src, engine.Options{})
		cascades := e.name != "sqlite" // SQLite runs with foreign keys off
		dry := db.DryRun(context.Background(), "DELETE FROM tree WHERE id = 7")
		if dry.Status != engine.DryRunOK {
			t.Fatalf("dry run %+v", dry)
		}
		total := dry.Rows
		for _, ch := range dry.Cascade {
			total += ch.Total()
		}
		if cascades && total != 31 {
			t.Errorf("the dry run counts %d rows (%+v), want 31: 1 and 30 in cascade in the same table", total, dry)
		}

		c := &confirmer{answers: []guard.Decision{AllowAlways}}
		s := NewSet(db, c.confirm)
		wantStatus(t, execSQL(t, s, "DELETE FROM tree WHERE id = 1"), engine.StatusSuccess)
		if len(c.requests) != 1 || !strings.Contains(c.requests[0].Scope, "up to 10 rows") {
			t.Fatalf("requests %+v, want one offering DELETE on tree up to 10 rows", c.requests)
		}
		asked, res := attackRun(t, s, c, "DELETE FROM tree WHERE id = 7")
		left := dbtest.QueryInt(t, src, "SELECT count(*) FROM tree")
		if !asked && res.Status == engine.StatusSuccess && left < 30 {
			t.Errorf("ran without a dialog under the 10-row allowance, and removed %d rows of tree", 31-left)
		}
	})
}

// TestAttackAllowVaryingRows: a predicate whose rows depend on when or
// where the statement runs (one random draw for the whole statement here;
// the clock or the connection's id do the same) counts 1 row in the trial
// run and all 40 in the run itself about one time in four. Bounded at the
// commit, a run that changes more than the allowance covers is rolled
// back and asks, with the rows it changed.
func TestAttackAllowVaryingRows(t *testing.T) {
	draw := map[sqltext.Dialect]string{
		sqltext.DialectPostgres: "(SELECT random()) < 0.5",
		sqltext.DialectMySQL:    "(SELECT r FROM (SELECT RAND() AS r) x) < 0.5",
		sqltext.DialectSQLite:   "(SELECT abs(random()) % 2) = 0",
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, s, c := attackOrders(t, e, "", 40, nil)
		for i := 0; i < 12; i++ {
			asked, res := attackRun(t, s, c, fmt.Sprintf("UPDATE orders SET status = 'x%d' WHERE id = 7 OR %s", i, draw[e.dialect]))
			changed := dbtest.QueryInt(t, src, fmt.Sprintf("SELECT count(*) FROM orders WHERE status = 'x%d'", i))
			if !asked && changed > guard.AllowanceFloor {
				t.Fatalf("try %d ran without a dialog under the 10-row allowance and changed %d rows (%s: %s)", i, changed, res.Status, res.Error)
			}
			if asked && changed > 0 {
				t.Fatalf("try %d asked, was rejected, and still changed %d rows", i, changed)
			}
			if asked && !strings.Contains(c.requests[len(c.requests)-1].Beyond, "rolled back") && c.requests[len(c.requests)-1].DryRun == engine.DryRunOK && *c.requests[len(c.requests)-1].AffectedRows <= guard.AllowanceFloor {
				t.Errorf("try %d asked after a trial run within the bound without saying why: %+v", i, c.requests[len(c.requests)-1])
			}
		}
	})
}

// TestRowLimitRollsBack: a write run under WithRowLimit that changes more
// rows than the limit is rolled back, and its result says how many.
func TestRowLimitRollsBack(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src, "CREATE TABLE orders (id integer PRIMARY KEY, status varchar(100) NOT NULL)",
			"INSERT INTO orders (id, status) VALUES (1, 'new'), (2, 'new'), (3, 'new')")
		db := openDB(t, src, engine.Options{})
		res := db.Run(engine.WithRowLimit(context.Background(), 2), "UPDATE orders SET status = 'paid'", true)
		wantStatus(t, res, engine.StatusRejected)
		if res.OverLimit != 3 || !strings.Contains(res.Error, "rolled back") {
			t.Errorf("over limit %d, error %q; want 3 and a rollback said", res.OverLimit, res.Error)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE status = 'paid'"); n != 0 {
			t.Errorf("%d rows changed, want none", n)
		}
		res = db.Run(engine.WithRowLimit(context.Background(), 2), "UPDATE orders SET status = 'paid' WHERE id = 1", true)
		wantStatus(t, res, engine.StatusSuccess)
	})
}

// TestAttackAllowCommentedKind: a comment before the statement hid its
// kind from MariaDB's check of the foreign keys that change rows in
// cascade (ON UPDATE CASCADE), which the trial run cannot count: the
// commented UPDATE ran under the allowance and changed 30 rows of
// order_items.
func TestAttackAllowCommentedKind(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		items := orderItems("ON UPDATE CASCADE")
		src, s, c := attackOrders(t, e, "", 40, nil, items...)
		for _, sql := range []string{"/* x */ UPDATE orders SET id = 1007 WHERE id = 7", "-- x\nUPDATE orders SET id = 1007 WHERE id = 7"} {
			asked, res := attackRun(t, s, c, sql)
			moved := dbtest.QueryInt(t, src, "SELECT count(*) FROM order_items WHERE order_id = 1007")
			if !asked && res.Status == engine.StatusSuccess && moved > 0 {
				t.Errorf("%q ran without a dialog under the 10-row allowance, and changed %d rows of order_items in cascade", sql, moved)
			}
		}
	})
}

// TestAttackAllowReplaceOnConflict: a column UNIQUE ON CONFLICT REPLACE
// makes an UPDATE of 10 rows delete the 10 others whose value it takes,
// which SQLite's trial run did not count.
func TestAttackAllowReplaceOnConflict(t *testing.T) {
	e := testEngines[0]
	if e.dialect != sqltext.DialectSQLite {
		t.Fatalf("the first test engine is %s, want SQLite", e.name)
	}
	ddl := "CREATE TABLE orders (id integer PRIMARY KEY, status varchar(100) NOT NULL, code text UNIQUE ON CONFLICT REPLACE)"
	src, s, c := attackOrders(t, e, ddl, 40, nil, "UPDATE orders SET code = 'c' || id")
	asked, res := attackRun(t, s, c, "UPDATE orders SET code = 'c' || (id + 20) WHERE id BETWEEN 1 AND 10")
	left := dbtest.QueryInt(t, src, "SELECT count(*) FROM orders")
	if !asked && left < 40 {
		t.Errorf("ran without a dialog (%s) and removed %d rows of orders besides the 10 it changed", res.Status, 40-left)
	}
	if asked && !strings.Contains(c.requests[len(c.requests)-1].DryRunText(), "the same table") {
		t.Errorf("asked, but the dialog does not say what the same table loses: %q", c.requests[len(c.requests)-1].DryRunText())
	}
}

// TestRowLimitCountsCascades: the bound at the commit counts what a write
// changes in cascade: a DELETE of one order that removes its 30 items
// through ON DELETE CASCADE changes 31 rows, more than a limit of 10, and
// is rolled back. SQLite runs no cascade (foreign keys off).
func TestRowLimitCountsCascades(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src, "CREATE TABLE orders (id integer PRIMARY KEY, status varchar(100) NOT NULL)",
			"INSERT INTO orders (id, status) VALUES (7, 'new'), (8, 'new')")
		dbtest.Exec(t, src, orderItems("ON DELETE CASCADE")...)
		db := openDB(t, src, engine.Options{})
		res := db.Run(engine.WithRowLimit(context.Background(), 10), "DELETE FROM orders WHERE id = 7", true)
		if e.dialect == sqltext.DialectSQLite {
			wantStatus(t, res, engine.StatusSuccess)
			return
		}
		wantStatus(t, res, engine.StatusRejected)
		if res.OverLimit != 31 {
			t.Errorf("over limit %d, want 31 (1 order and 30 items)", res.OverLimit)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM order_items"); n != 30 {
			t.Errorf("%d items left, want 30: the delete was not rolled back", n)
		}
	})
}

// TestAttackAllowVaryingCascade: the trial run draws false and counts 1
// row, the run draws true and moves 30 items through ON UPDATE CASCADE
// (what an attacker found on PostgreSQL after the bound held at the
// commit for the statement's own rows only).
func TestAttackAllowVaryingCascade(t *testing.T) {
	draw := map[sqltext.Dialect]string{
		sqltext.DialectPostgres: "random() < 0.5",
		sqltext.DialectMySQL:    "RAND() < 0.5",
		sqltext.DialectSQLite:   "abs(random()) % 2 = 0",
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		items := orderItems("ON UPDATE CASCADE")
		src, s, c := attackOrders(t, e, "", 40, nil, items...)
		for i := 0; i < 8; i++ {
			asked, res := attackRun(t, s, c, "UPDATE orders SET id = CASE WHEN "+draw[e.dialect]+" THEN 1007 ELSE id END WHERE id = 7")
			moved := dbtest.QueryInt(t, src, "SELECT count(*) FROM order_items WHERE order_id = 1007")
			if !asked && moved > 0 {
				t.Fatalf("try %d ran without a dialog (%s) and moved %d items in cascade", i, res.Status, moved)
			}
			if moved > 0 || dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE id = 1007") > 0 && e.dialect != sqltext.DialectSQLite {
				t.Fatalf("try %d changed the order (%s) though every dialog was rejected", i, res.Status)
			}
			if dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE id = 1007") > 0 {
				// SQLite runs no cascade: the order moved alone, within the
				// allowance; move it back for the next try.
				dbtest.Exec(t, src, "UPDATE orders SET id = 7 WHERE id = 1007")
			}
		}
	})
}

// orderItems creates order_items, 30 rows of order 7, whose foreign key
// to orders has rule (ON UPDATE CASCADE).
func orderItems(rule string) []string {
	var vals []string
	for i := 1; i <= 30; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 7)", i))
	}
	return []string{"CREATE TABLE order_items (id integer PRIMARY KEY, order_id integer, " +
		"FOREIGN KEY (order_id) REFERENCES orders (id) " + rule + ")",
		"INSERT INTO order_items (id, order_id) VALUES " + strings.Join(vals, ", ")}
}
