package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// shopLines are fragments of each table's line that every engine gives.
var shopLines = map[string][]string{
	"customers":   {"customers(id int PK, email ", " NOT NULL UNIQUE", "referred_by int -> customers.id)", "~3 rows"},
	"orders":      {"customer_id int NOT NULL -> customers.id", "in {open,paid,shipped}", "in {web,shop}", "total_cents int indexed"},
	"order_lines": {"order_id int NOT NULL -> orders.id", "line_no int NOT NULL", ", PK (order_id, line_no))"},
	"shipments":   {"shipments(id int PK, order_id int", ", (order_id, line_no) -> order_lines(order_id, line_no))"},
	"big_orders":  {"view big_orders(id int", "customer_id int"},
}

// shopSchema loads the shop schema into a new database of engine e.
func shopSchema(t *testing.T, e testEngine) (sessionio.Source, *engine.DB) {
	t.Helper()
	src := e.source(t)
	dbtest.Shop(t, src)
	return src, openDB(t, src, engine.Options{})
}

func TestCatalog(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := shopSchema(t, e)
		s, err := db.Schema(context.Background())
		if err != nil {
			t.Fatalf("Schema: %v", err)
		}
		for name, fragments := range shopLines {
			tbl, ok := s.Table(name)
			if !ok {
				t.Errorf("no table %s in %v", name, s.Names())
				continue
			}
			line := s.Line(&tbl)
			for _, f := range fragments {
				if !strings.Contains(line, f) {
					t.Errorf("line of %s = %s\nwant it to hold %q", name, line, f)
				}
			}
		}
		odd, _ := s.Table("Odd Name")
		wantOdd := map[sqltext.Dialect]string{sqltext.DialectMySQL: "`Odd Name`(", sqltext.DialectPostgres: `"Odd Name"(`, sqltext.DialectSQLite: `"Odd Name"(`}[e.dialect]
		if line := s.Line(&odd); !strings.HasPrefix(line, wantOdd) ||
			!strings.Contains(line, s.Ident("select")+" int") || !strings.Contains(line, s.Ident("bücher")+" text") ||
			s.Ident("select") == "select" || s.Ident("bücher") == "bücher" {
			t.Errorf("line of Odd Name = %s, want it and its columns quoted as %s", line, wantOdd)
		}
		customers, _ := s.Table("customers")
		if e.dialect != sqltext.DialectSQLite {
			line := s.Line(&customers)
			for _, f := range []string{`-- "one row per buyer"`, `"login address"`} {
				if !strings.Contains(line, f) {
					t.Errorf("line of customers = %s, want the comment %s", line, f)
				}
			}
		}
		card := s.Card(&customers)
		for _, f := range []string{"referenced by: orders(customer_id) -> (id)", "referenced by: customers(referred_by) -> (id)", "primary key: (id)"} {
			if !strings.Contains(card, f) {
				t.Errorf("card of customers =\n%s\nwant it to hold %q", card, f)
			}
		}
		orders, _ := s.Table("orders")
		if card := s.Card(&orders); !strings.Contains(card, "index orders_total_idx (total_cents)") {
			t.Errorf("card of orders =\n%s\nwant its index", card)
		}
		if e.dialect == sqltext.DialectPostgres {
			// A unique index is a UNIQUE as a constraint is; a partial
			// one is not.
			dbtest.Exec(t, src, "CREATE TABLE tags (id int PRIMARY KEY, slug text, name text)",
				"CREATE UNIQUE INDEX tags_slug ON tags (slug)", "CREATE UNIQUE INDEX tags_name ON tags (name) WHERE id > 0")
			db.RefreshSchema()
			s, err = db.Schema(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tags, _ := s.Table("tags")
			if line := s.Line(&tags); !strings.Contains(line, "slug text UNIQUE") || strings.Contains(line, "name text UNIQUE") {
				t.Errorf("line of tags = %s, want slug UNIQUE from its unique index, name not from a partial one", line)
			}
			events, ok := s.Table("audit.events")
			if !ok || events.Schema != "audit" {
				t.Fatalf("audit.events = %+v, %v; want it in schema audit", events, ok)
			}
			if line := s.Line(&events); !strings.HasPrefix(line, "audit.events(id int PK, order_id int -> orders.id)") {
				t.Errorf("line of audit.events = %s", line)
			}
			if card := s.Card(&orders); !strings.Contains(card, "referenced by: audit.events(order_id) -> (id)") {
				t.Errorf("card of orders =\n%s\nwant the key from audit.events", card)
			}
		}
	})
}

func TestCheckValues(t *testing.T) {
	for _, c := range []struct {
		expr, column string
		values       []string
	}{
		{"CHECK ((status = ANY (ARRAY['open'::text, 'paid'::text])))", "status", []string{"open", "paid"}},
		{"CHECK (((kind)::text = ANY ((ARRAY['a b'::character varying, 'it''s'::character varying])::text[])))", "kind", []string{"a b", "it's"}},
		{"`kind` in ('web','shop')", "kind", []string{"web", "shop"}},
		{`"Odd" IN ('x')`, "Odd", []string{"x"}},
		{"kind IN ('a', 'b') OR kind IS NULL", "", nil},
		{"kind IN ('a', 1)", "", nil},
		{"price > 0", "", nil},
	} {
		column, values, ok := engine.CheckValues(c.expr)
		if column != c.column || strings.Join(values, "|") != strings.Join(c.values, "|") || ok != (c.values != nil) {
			t.Errorf("checkValues(%s) = %q, %q, %v; want %q, %q", c.expr, column, values, ok, c.column, c.values)
		}
	}
}
