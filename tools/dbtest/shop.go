package dbtest

import (
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
)

// shopDDL is a schema with every feature the catalog reads, per engine: a
// composite primary key, composite and self-referencing foreign keys, a
// unique column, an index, allowed values, comments, a view, names that
// need quoting, and on PostgreSQL a second schema.
var shopDDL = map[string][]string{
	sessionio.TypePostgreSQL: {
		`CREATE TYPE order_status AS ENUM ('open', 'paid', 'shipped')`,
		`CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL UNIQUE, name text, referred_by int REFERENCES customers(id))`,
		`COMMENT ON TABLE customers IS 'one row per buyer'`,
		`COMMENT ON COLUMN customers.email IS 'login address'`,
		`CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id), status order_status NOT NULL,
			kind text CHECK (kind IN ('web', 'shop')), total_cents int)`,
		`CREATE INDEX orders_total_idx ON orders (total_cents)`,
		`CREATE TABLE order_lines (order_id int REFERENCES orders(id), line_no int, product text, PRIMARY KEY (order_id, line_no))`,
		`CREATE TABLE shipments (id int PRIMARY KEY, order_id int, line_no int, FOREIGN KEY (order_id, line_no) REFERENCES order_lines (order_id, line_no))`,
		`CREATE VIEW big_orders AS SELECT * FROM orders WHERE total_cents > 10000`,
		`CREATE TABLE "Odd Name" (id int PRIMARY KEY, "select" int, "bücher" text)`,
		`CREATE SCHEMA audit`,
		`CREATE TABLE audit.events (id int PRIMARY KEY, order_id int REFERENCES public.orders(id))`,
		`INSERT INTO customers VALUES (1, 'a@x', 'A', NULL), (2, 'b@x', 'B', 1), (3, 'c@x', 'C', 1)`,
		`ANALYZE`,
	},
	sessionio.TypeMySQL: {
		"CREATE TABLE customers (id int PRIMARY KEY, email varchar(100) NOT NULL UNIQUE COMMENT 'login address', name text, referred_by int, " +
			"FOREIGN KEY (referred_by) REFERENCES customers(id)) COMMENT = 'one row per buyer'",
		"CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, status ENUM('open', 'paid', 'shipped') NOT NULL, " +
			"kind varchar(10) CHECK (kind IN ('web', 'shop')), total_cents int, INDEX orders_total_idx (total_cents), " +
			"FOREIGN KEY (customer_id) REFERENCES customers(id))",
		"CREATE TABLE order_lines (order_id int, line_no int, product text, PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES orders(id))",
		"CREATE TABLE shipments (id int PRIMARY KEY, order_id int, line_no int, FOREIGN KEY (order_id, line_no) REFERENCES order_lines (order_id, line_no))",
		"CREATE VIEW big_orders AS SELECT * FROM orders WHERE total_cents > 10000",
		"CREATE TABLE `Odd Name` (id int PRIMARY KEY, `select` int, `bücher` text)",
		"INSERT INTO customers VALUES (1, 'a@x', 'A', NULL), (2, 'b@x', 'B', 1), (3, 'c@x', 'C', 1)",
		"ANALYZE TABLE customers",
	},
	sessionio.TypeSQLite: {
		`CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL UNIQUE, name text, referred_by int REFERENCES customers(id))`,
		`CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers(id),
			status text NOT NULL CHECK (status IN ('open', 'paid', 'shipped')), kind text, total_cents int,
			CHECK (kind IN ('web', 'shop')))`,
		`CREATE INDEX orders_total_idx ON orders (total_cents)`,
		`CREATE TABLE order_lines (order_id int REFERENCES orders(id), line_no int, product text, PRIMARY KEY (order_id, line_no))`,
		`CREATE TABLE shipments (id int PRIMARY KEY, order_id int, line_no int, FOREIGN KEY (order_id, line_no) REFERENCES order_lines (order_id, line_no))`,
		`CREATE VIEW big_orders AS SELECT * FROM orders WHERE total_cents > 10000`,
		`CREATE TABLE "Odd Name" (id int PRIMARY KEY, "select" int, "bücher" text)`,
		`INSERT INTO customers VALUES (1, 'a@x', 'A', NULL), (2, 'b@x', 'B', 1), (3, 'c@x', 'C', 1)`,
	},
}

// Shop creates the shop schema in src's database: customers (3 rows),
// orders, order_lines, shipments, the view big_orders, "Odd Name", and on
// PostgreSQL audit.events in a second schema.
func Shop(t testing.TB, src sessionio.Source) {
	t.Helper()
	stmts, ok := shopDDL[src.Type]
	if !ok {
		t.Fatalf("no shop schema for %s", src.Type)
	}
	Exec(t, src, stmts...)
}
