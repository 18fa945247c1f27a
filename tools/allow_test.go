package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

func TestStatementShape(t *testing.T) {
	scoped := []struct {
		d    sqltext.Dialect
		sql  string
		text string
	}{
		{sqltext.DialectPostgres, "UPDATE orders SET status = 'paid' WHERE id = 7", "UPDATE on orders"},
		{sqltext.DialectPostgres, "update Orders o set status = 'paid', total = 3 where o.id = 7;", "UPDATE on Orders"},
		{sqltext.DialectPostgres, "INSERT INTO audit_log (a, b) VALUES (1, 2), (3, 4)", "INSERT on audit_log"},
		{sqltext.DialectPostgres, "INSERT INTO audit_log SELECT id, status FROM orders JOIN customers c ON true", "INSERT on audit_log (reading orders, customers)"},
		{sqltext.DialectPostgres, "DELETE FROM public.orders WHERE id IN (SELECT order_id FROM refunds, returns r)", "DELETE on public.orders (reading refunds, returns)"},
		{sqltext.DialectPostgres, "UPDATE orders SET total = s.total FROM sums s WHERE s.id = orders.id", "UPDATE on orders (reading sums)"},
		{sqltext.DialectPostgres, "DELETE FROM orders USING customers WHERE customers.id = orders.customer_id", "DELETE on orders (reading customers)"},
		{sqltext.DialectMySQL, "UPDATE LOW_PRIORITY `orders` SET status = 'paid' WHERE id = 7", "UPDATE on `orders`"},
		{sqltext.DialectMySQL, "REPLACE INTO orders (id) VALUES (1)", "REPLACE on orders"},
		{sqltext.DialectSQLite, "DELETE FROM [order items] WHERE id = 1", "DELETE on [order items]"},
		{sqltext.DialectPostgres, `DELETE FROM orders WHERE "Id" = 1`, "DELETE on orders"},
		{sqltext.DialectPostgres, "DELETE FROM orders WHERE lower(status) = 'x'", "DELETE on orders"},
	}
	for _, c := range scoped {
		s, ok := sqltext.StatementShape(c.sql, c.d)
		if !ok || s.Text() != c.text {
			t.Errorf("%s (%s): shape %q, %v; want %q", c.sql, c.d, s.Text(), ok, c.text)
		}
	}
	if s, _ := sqltext.StatementShape(scoped[0].sql, sqltext.DialectPostgres); guard.ScopeOf(s, 10) != "Allow UPDATE on orders, up to 10 rows at a time, for this conversation" {
		t.Errorf("scope %q", guard.ScopeOf(s, 10))
	}

	asksEveryTime := []struct {
		d   sqltext.Dialect
		sql string
	}{
		{sqltext.DialectPostgres, "DROP TABLE t2"},
		{sqltext.DialectPostgres, "TRUNCATE orders"},
		{sqltext.DialectPostgres, "ALTER TABLE orders ADD COLUMN x int"},
		{sqltext.DialectPostgres, "GRANT ALL ON orders TO public"},
		{sqltext.DialectPostgres, "CREATE TABLE made (a int)"},
		{sqltext.DialectPostgres, "DELETE FROM order_items"},
		{sqltext.DialectPostgres, "UPDATE orders SET status = 'paid'"},
		{sqltext.DialectPostgres, "UPDATE orders SET status = (SELECT 1 WHERE true)"},
		{sqltext.DialectPostgres, "UPDATE orders SET status = 'x' WHERE true"},
		{sqltext.DialectPostgres, "DELETE FROM orders WHERE 1 = 1"},
		{sqltext.DialectPostgres, "DELETE FROM orders WHERE now() IS NOT NULL RETURNING id"},
		{sqltext.DialectPostgres, "DELETE FROM orders WHERE (NOT false)"},
		{sqltext.DialectMySQL, "DELETE FROM orders WHERE 1 ORDER BY id LIMIT 5"},
		{sqltext.DialectSQLite, "UPDATE orders SET a = 1 WHERE 'x' LIKE '%'"},
		{sqltext.DialectPostgres, "WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING *) SELECT * FROM d"},
		{sqltext.DialectPostgres, "INSERT INTO t SELECT pg_read_file('/etc/passwd')"},
		{sqltext.DialectPostgres, "UPDATE orders SET note = pg_terminate_backend(1) WHERE id = 1"},
		{sqltext.DialectPostgres, "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2"},
		{sqltext.DialectPostgres, "COPY orders FROM '/tmp/x'"},
		{sqltext.DialectPostgres, "SELECT 1"},
		{sqltext.DialectPostgres, "DELETE FROM orders WHERE id = 1; DROP TABLE orders"},
		{sqltext.DialectMySQL, "UPDATE orders, customers SET orders.a = 1, customers.b = 2 WHERE orders.c = customers.c"},
		{sqltext.DialectMySQL, "UPDATE orders JOIN customers ON true SET customers.b = 2 WHERE orders.id = 1"},
		{sqltext.DialectMySQL, "DELETE orders, customers FROM orders JOIN customers ON true WHERE orders.id = 1"},
		{sqltext.DialectMySQL, "DELETE FROM orders, customers USING orders JOIN customers WHERE orders.id = 1"},
		{sqltext.DialectMySQL, "DELETE FROM orders USING orders JOIN customers WHERE orders.id = 1"},
		{sqltext.DialectMySQL, "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2"},
		{sqltext.DialectMySQL, "DELETE /*!50000 FROM orders */ FROM t WHERE id = 1"},
		{sqltext.DialectMySQL, "LOAD DATA INFILE '/tmp/x' INTO TABLE orders"},
		{sqltext.DialectSQLite, "INSERT OR REPLACE INTO orders VALUES (1)"},
		{sqltext.DialectSQLite, "UPDATE OR REPLACE orders SET id = 1 WHERE id = 2"},
		{sqltext.DialectSQLite, "ATTACH DATABASE '/tmp/x.db' AS x"},
		// A function the database defines may change any table.
		{sqltext.DialectPostgres, "UPDATE orders SET status = 'x' WHERE id = 7 AND wipe_items() IS NOT NULL"},
		{sqltext.DialectMySQL, "UPDATE orders SET status = 'x' WHERE id = 7 AND grant_me() = 1"},
		{sqltext.DialectPostgres, "UPDATE orders SET status = public.audit(status) WHERE id = 7"},
		{sqltext.DialectPostgres, `UPDATE orders SET status = "Audit"(status) WHERE id = 7`},
		{sqltext.DialectPostgres, "UPDATE orders SET status = public.lower(status) WHERE id = 7"},
		{sqltext.DialectPostgres, "UPDATE orders SET status = 'x' WHERE id = 7 AND public.upper(status) IS NOT NULL"},
		{sqltext.DialectPostgres, `UPDATE orders SET status = "public".coalesce(status, 'x') WHERE id = 7`},
		{sqltext.DialectPostgres, "UPDATE orders SET status = x.pg_catalog.lower(status) WHERE id = 7"},
		{sqltext.DialectMySQL, "UPDATE orders SET status = shop.lower(status) WHERE id = 7"},
		{sqltext.DialectSQLite, "UPDATE orders SET status = main.lower(status) WHERE id = 7"},
		{sqltext.DialectSQLite, "INSERT INTO orders (id) SELECT x FROM (SELECT 1) AS v(x)"},
	}
	for _, c := range asksEveryTime {
		if s, ok := sqltext.StatementShape(c.sql, c.d); ok {
			t.Errorf("%s (%s): shape %q, want none: it must ask every time", c.sql, c.d, s.Text())
		}
	}

	// The same shape, written differently, is covered; another object or
	// kind is not, nor a quoted name that differs from an unquoted one.
	a, _ := sqltext.StatementShape("UPDATE orders SET status = 'paid' WHERE id = 7", sqltext.DialectPostgres)
	for sql, want := range map[string]bool{
		"update ORDERS set status = 'shipped' where id = 9":                true,
		"UPDATE orders SET total = 0 WHERE id > 3":                         true,
		"UPDATE customers SET status = 'paid' WHERE id = 7":                false,
		"DELETE FROM orders WHERE id = 7":                                  false,
		`UPDATE "Orders" SET status = 'paid' WHERE id = 7`:                 false,
		"UPDATE orders SET total = s.t FROM s WHERE s.i = 1":               false,
		"UPDATE orders SET status = pg_catalog.lower(status) WHERE id = 7": true,
	} {
		b, ok := sqltext.StatementShape(sql, sqltext.DialectPostgres)
		if !ok || a.Covers(b) != want {
			t.Errorf("UPDATE orders covers %s: %v (shape found: %v), want %v", sql, a.Covers(b), ok, want)
		}
	}
}

// TestSetScopedAllowance answers allow_always to a one-row UPDATE, then
// checks, on every engine, that the same shape runs without asking and
// that a DROP, a DELETE without WHERE and a write to another table each
// ask again; then revokes the allowance.
func TestSetScopedAllowance(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := seeded(t, e, engine.Options{})
		c := &confirmer{answers: []guard.Decision{AllowAlways}}
		s := NewSet(db, c.confirm)

		update := "UPDATE t SET name = 'uno' WHERE id = 1"
		if r := execSQL(t, s, update); r.Status != engine.StatusSuccess || r.AllowedBy != "" {
			t.Fatalf("the answered UPDATE: status %q, allowedBy %q; want success, by no allowance", r.Status, r.AllowedBy)
		}
		if len(c.requests) != 1 || c.requests[0].Scope != "Allow UPDATE on t, up to 10 rows at a time, for this conversation" {
			t.Fatalf("requests %+v, want one with the scope of UPDATE on t", c.requests)
		}
		al := s.Allowances()
		if len(al) != 1 || al[0].Scope != "Allow UPDATE on t, up to 10 rows at a time, for this conversation" || al[0].ID == "" || al[0].MaxRows != 10 {
			t.Fatalf("allowances %+v, want the one for UPDATE on t", al)
		}

		covered := execSQL(t, s, "UPDATE t SET name = 'dos' WHERE id = 2")
		wantStatus(t, covered, engine.StatusSuccess)
		if covered.AllowedBy != al[0].Scope {
			t.Errorf("the covered UPDATE ran with allowedBy %q, want its allowance's scope", covered.AllowedBy)
		}
		if len(c.requests) != 1 {
			t.Errorf("the same shape asked again: %+v", c.requests[1:])
		}
		if got := dbtest.QueryStrings(t, src, "SELECT name FROM t WHERE id = 2"); strings.Join(got, "") != "dos" {
			t.Errorf("t row 2 = %v, want dos", got)
		}

		// Each of these asks, is rejected (the script has no more answers)
		// and changes nothing.
		before := fingerprint(t, e, src)
		for _, sql := range []string{
			"DROP TABLE t",
			"DELETE FROM t",
			"UPDATE t SET name = 'x'",
			"CREATE TABLE t2 (a int)",
			"DELETE FROM t WHERE id = 1",
		} {
			n := len(c.requests)
			wantStatus(t, execSQL(t, s, sql), engine.StatusRejected)
			if len(c.requests) != n+1 {
				t.Errorf("%s did not ask", sql)
				continue
			}
			req := c.requests[n]
			wantScope := ""
			if sql == "DELETE FROM t WHERE id = 1" {
				wantScope = "Allow DELETE on t, up to 10 rows at a time, for this conversation"
			}
			if req.Scope != wantScope {
				t.Errorf("%s: scope %q, want %q", sql, req.Scope, wantScope)
			}
		}
		if after := fingerprint(t, e, src); after != before {
			t.Errorf("a rejected write changed the database")
		}

		// allow_always on a statement without a scope allows it once.
		c.answers = []guard.Decision{AllowAlways}
		wantStatus(t, execSQL(t, s, "CREATE TABLE t2 (a int)"), engine.StatusSuccess)
		if len(s.Allowances()) != 1 {
			t.Errorf("allowances %+v: a statement without a scope added one", s.Allowances())
		}
		n := len(c.requests)
		wantStatus(t, execSQL(t, s, "DROP TABLE t2"), engine.StatusRejected)
		if len(c.requests) != n+1 {
			t.Errorf("DROP TABLE after allow_always on CREATE TABLE did not ask")
		}

		if s.Revoke("nope") {
			t.Errorf("Revoke of an unknown id reported one")
		}
		if !s.Revoke(al[0].ID) || len(s.Allowances()) != 0 {
			t.Fatalf("Revoke(%s) left %+v", al[0].ID, s.Allowances())
		}
		n = len(c.requests)
		wantStatus(t, execSQL(t, s, "UPDATE t SET name = 'tres' WHERE id = 3"), engine.StatusRejected)
		if len(c.requests) != n+1 {
			t.Errorf("a revoked allowance still covered its shape")
		}
	})
}

// TestAllowanceBound: "Allow always" on a one-row UPDATE covers later
// UPDATEs of the same shape only as far as their dry run counts no more than
// AllowanceFloor rows. A predicate that picks every row, a call of a
// function the database defines and a statement whose rows cannot be
// counted all ask, with the count, on every engine; another one-row UPDATE
// does not.
func TestAllowanceBound(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		stmts := []string{"CREATE TABLE orders (id integer PRIMARY KEY, status varchar(20) NOT NULL)"}
		for i := 1; i <= 40; i++ {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO orders VALUES (%d, 'new')", i))
		}
		dbtest.Exec(t, src, stmts...)
		switch e.name {
		case "postgres":
			dbtest.Exec(t, src, "CREATE FUNCTION touch() RETURNS integer LANGUAGE sql AS 'SELECT 1'")
		case "mariadb":
			dbtest.Exec(t, src, "CREATE FUNCTION touch() RETURNS integer DETERMINISTIC RETURN 1")
		}
		db := openDB(t, src, engine.Options{})
		c := &confirmer{answers: []guard.Decision{AllowAlways}}
		s := NewSet(db, c.confirm)

		wantStatus(t, execSQL(t, s, "UPDATE orders SET status = 'paid' WHERE id = 7"), engine.StatusSuccess)
		if len(c.requests) != 1 || c.requests[0].Scope != "Allow UPDATE on orders, up to 10 rows at a time, for this conversation" {
			t.Fatalf("requests %+v, want one offering UPDATE on orders up to 10 rows", c.requests)
		}
		wantStatus(t, execSQL(t, s, "UPDATE orders SET status = 'paid' WHERE id = 8"), engine.StatusSuccess)
		if len(c.requests) != 1 {
			t.Fatalf("another one-row UPDATE asked: %+v", c.requests[1:])
		}

		asks := []string{
			"UPDATE orders SET status = 'x' WHERE id = 7 OR true",
			"UPDATE orders SET status = 'x' WHERE id = 7 OR 1 = 1",
			"UPDATE orders SET status = 'x' WHERE id = id",
			"UPDATE orders SET status = 'x' WHERE id IS NOT NULL",
			"UPDATE orders SET status = 'x' WHERE id > 0",
			"UPDATE orders SET status = 'x' WHERE id IN (SELECT id FROM orders)",
		}
		if e.name != "sqlite" {
			asks = append(asks, "UPDATE orders SET status = 'x' WHERE id = 7 AND touch() = 1")
		}
		before := dbtest.QueryStrings(t, src, "SELECT count(*) FROM orders WHERE status = 'x'")
		for _, sql := range asks {
			n := len(c.requests)
			wantStatus(t, execSQL(t, s, sql), engine.StatusRejected)
			if len(c.requests) != n+1 {
				t.Errorf("%s ran under the allowance without asking", sql)
				continue
			}
			req := c.requests[n]
			if strings.Contains(sql, "touch") {
				if req.Scope != "" {
					t.Errorf("%s: scope %q, want none: a function the database defines is outside every allowance", sql, req.Scope)
				}
				continue
			}
			if req.AffectedRows == nil || *req.AffectedRows != 40 || !strings.Contains(req.DryRunText(), "more than the 10") {
				t.Errorf("%s: asked with dry run %q %v, want the count of 40 rows and why the allowance does not cover it", sql, req.DryRunText(), req.AffectedRows)
			}
		}
		if after := dbtest.QueryStrings(t, src, "SELECT count(*) FROM orders WHERE status = 'x'"); strings.Join(after, "") != strings.Join(before, "") {
			t.Errorf("a statement beyond the allowance changed rows: %v", after)
		}

		// A statement whose dry run is skipped (a table with a trigger)
		// asks, though its shape is allowed.
		switch e.name {
		case "postgres":
			dbtest.Exec(t, src, "CREATE FUNCTION keep() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'",
				"CREATE TRIGGER keep BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION keep()")
		case "mariadb":
			dbtest.Exec(t, src, "CREATE TRIGGER keep BEFORE UPDATE ON orders FOR EACH ROW SET NEW.status = NEW.status")
		case "sqlite":
			dbtest.Exec(t, src, "CREATE TRIGGER keep AFTER UPDATE ON orders BEGIN SELECT 1; END")
		}
		db.RefreshSchema()
		n := len(c.requests)
		wantStatus(t, execSQL(t, s, "UPDATE orders SET status = 'y' WHERE id = 9"), engine.StatusRejected)
		if len(c.requests) != n+1 {
			t.Fatalf("an allowed UPDATE whose rows were not counted ran without asking")
		}
		if req := c.requests[n]; req.DryRun != engine.DryRunSkipped || !strings.Contains(req.DryRunText(), "could not be counted") {
			t.Errorf("asked with %q (%s), want the skipped dry run and why the allowance does not cover it", req.DryRunText(), req.DryRun)
		}
	})
}
