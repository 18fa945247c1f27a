package tools

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

func TestStatementShape(t *testing.T) {
	scoped := []struct {
		d    Dialect
		sql  string
		text string
	}{
		{DialectPostgres, "UPDATE orders SET status = 'paid' WHERE id = 7", "UPDATE on orders"},
		{DialectPostgres, "update Orders o set status = 'paid', total = 3 where o.id = 7;", "UPDATE on Orders"},
		{DialectPostgres, "INSERT INTO audit_log (a, b) VALUES (1, 2), (3, 4)", "INSERT on audit_log"},
		{DialectPostgres, "INSERT INTO audit_log SELECT id, status FROM orders JOIN customers c ON true", "INSERT on audit_log (reading orders, customers)"},
		{DialectPostgres, "DELETE FROM public.orders WHERE id IN (SELECT order_id FROM refunds, returns r)", "DELETE on public.orders (reading refunds, returns)"},
		{DialectPostgres, "UPDATE orders SET total = s.total FROM sums s WHERE s.id = orders.id", "UPDATE on orders (reading sums)"},
		{DialectPostgres, "DELETE FROM orders USING customers WHERE customers.id = orders.customer_id", "DELETE on orders (reading customers)"},
		{DialectMySQL, "UPDATE LOW_PRIORITY `orders` SET status = 'paid' WHERE id = 7", "UPDATE on `orders`"},
		{DialectMySQL, "REPLACE INTO orders (id) VALUES (1)", "REPLACE on orders"},
		{DialectSQLite, "DELETE FROM [order items] WHERE id = 1", "DELETE on [order items]"},
		{DialectPostgres, `DELETE FROM orders WHERE "Id" = 1`, "DELETE on orders"},
		{DialectPostgres, "DELETE FROM orders WHERE lower(status) = 'x'", "DELETE on orders"},
	}
	for _, c := range scoped {
		s, ok := StatementShape(c.sql, c.d)
		if !ok || s.Text() != c.text {
			t.Errorf("%s (%s): shape %q, %v; want %q", c.sql, c.d, s.Text(), ok, c.text)
		}
	}
	if s, _ := StatementShape(scoped[0].sql, DialectPostgres); s.Scope() != "Allow UPDATE on orders for this conversation" {
		t.Errorf("scope %q", s.Scope())
	}

	asksEveryTime := []struct {
		d   Dialect
		sql string
	}{
		{DialectPostgres, "DROP TABLE t2"},
		{DialectPostgres, "TRUNCATE orders"},
		{DialectPostgres, "ALTER TABLE orders ADD COLUMN x int"},
		{DialectPostgres, "GRANT ALL ON orders TO public"},
		{DialectPostgres, "CREATE TABLE made (a int)"},
		{DialectPostgres, "DELETE FROM order_items"},
		{DialectPostgres, "UPDATE orders SET status = 'paid'"},
		{DialectPostgres, "UPDATE orders SET status = (SELECT 1 WHERE true)"},
		{DialectPostgres, "UPDATE orders SET status = 'x' WHERE true"},
		{DialectPostgres, "DELETE FROM orders WHERE 1 = 1"},
		{DialectPostgres, "DELETE FROM orders WHERE now() IS NOT NULL RETURNING id"},
		{DialectPostgres, "DELETE FROM orders WHERE (NOT false)"},
		{DialectMySQL, "DELETE FROM orders WHERE 1 ORDER BY id LIMIT 5"},
		{DialectSQLite, "UPDATE orders SET a = 1 WHERE 'x' LIKE '%'"},
		{DialectPostgres, "WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING *) SELECT * FROM d"},
		{DialectPostgres, "INSERT INTO t SELECT pg_read_file('/etc/passwd')"},
		{DialectPostgres, "UPDATE orders SET note = pg_terminate_backend(1) WHERE id = 1"},
		{DialectPostgres, "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2"},
		{DialectPostgres, "COPY orders FROM '/tmp/x'"},
		{DialectPostgres, "SELECT 1"},
		{DialectPostgres, "DELETE FROM orders WHERE id = 1; DROP TABLE orders"},
		{DialectMySQL, "UPDATE orders, customers SET orders.a = 1, customers.b = 2 WHERE orders.c = customers.c"},
		{DialectMySQL, "UPDATE orders JOIN customers ON true SET customers.b = 2 WHERE orders.id = 1"},
		{DialectMySQL, "DELETE orders, customers FROM orders JOIN customers ON true WHERE orders.id = 1"},
		{DialectMySQL, "DELETE FROM orders, customers USING orders JOIN customers WHERE orders.id = 1"},
		{DialectMySQL, "DELETE FROM orders USING orders JOIN customers WHERE orders.id = 1"},
		{DialectMySQL, "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2"},
		{DialectMySQL, "DELETE /*!50000 FROM orders */ FROM t WHERE id = 1"},
		{DialectMySQL, "LOAD DATA INFILE '/tmp/x' INTO TABLE orders"},
		{DialectSQLite, "INSERT OR REPLACE INTO orders VALUES (1)"},
		{DialectSQLite, "UPDATE OR REPLACE orders SET id = 1 WHERE id = 2"},
		{DialectSQLite, "ATTACH DATABASE '/tmp/x.db' AS x"},
	}
	for _, c := range asksEveryTime {
		if s, ok := StatementShape(c.sql, c.d); ok {
			t.Errorf("%s (%s): shape %q, want none: it must ask every time", c.sql, c.d, s.Text())
		}
	}

	// The same shape, written differently, is covered; another object or
	// kind is not, nor a quoted name that differs from an unquoted one.
	a, _ := StatementShape("UPDATE orders SET status = 'paid' WHERE id = 7", DialectPostgres)
	for sql, want := range map[string]bool{
		"update ORDERS set status = 'shipped' where id = 9":  true,
		"UPDATE orders SET total = 0 WHERE id > 3":           true,
		"UPDATE customers SET status = 'paid' WHERE id = 7":  false,
		"DELETE FROM orders WHERE id = 7":                    false,
		`UPDATE "Orders" SET status = 'paid' WHERE id = 7`:   false,
		"UPDATE orders SET total = s.t FROM s WHERE s.i = 1": false,
	} {
		b, ok := StatementShape(sql, DialectPostgres)
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
		src, db := seeded(t, e, Options{})
		c := &confirmer{answers: []Decision{AllowAlways}}
		s := NewSet(db, c.confirm)

		update := "UPDATE t SET name = 'uno' WHERE id = 1"
		wantStatus(t, execSQL(t, s, update), StatusSuccess)
		if len(c.requests) != 1 || c.requests[0].Scope != "Allow UPDATE on t for this conversation" {
			t.Fatalf("requests %+v, want one with the scope of UPDATE on t", c.requests)
		}
		al := s.Allowances()
		if len(al) != 1 || al[0].Scope != "Allow UPDATE on t for this conversation" || al[0].ID == "" {
			t.Fatalf("allowances %+v, want the one for UPDATE on t", al)
		}

		wantStatus(t, execSQL(t, s, "UPDATE t SET name = 'dos' WHERE id = 2"), StatusSuccess)
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
			wantStatus(t, execSQL(t, s, sql), StatusRejected)
			if len(c.requests) != n+1 {
				t.Errorf("%s did not ask", sql)
				continue
			}
			req := c.requests[n]
			wantScope := ""
			if sql == "DELETE FROM t WHERE id = 1" {
				wantScope = "Allow DELETE on t for this conversation"
			}
			if req.Scope != wantScope {
				t.Errorf("%s: scope %q, want %q", sql, req.Scope, wantScope)
			}
		}
		if after := fingerprint(t, e, src); after != before {
			t.Errorf("a rejected write changed the database")
		}

		// allow_always on a statement without a scope allows it once.
		c.answers = []Decision{AllowAlways}
		wantStatus(t, execSQL(t, s, "CREATE TABLE t2 (a int)"), StatusSuccess)
		if len(s.Allowances()) != 1 {
			t.Errorf("allowances %+v: a statement without a scope added one", s.Allowances())
		}
		n := len(c.requests)
		wantStatus(t, execSQL(t, s, "DROP TABLE t2"), StatusRejected)
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
		wantStatus(t, execSQL(t, s, "UPDATE t SET name = 'tres' WHERE id = 3"), StatusRejected)
		if len(c.requests) != n+1 {
			t.Errorf("a revoked allowance still covered its shape")
		}
	})
}
