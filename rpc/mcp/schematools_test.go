package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// shopDDL adds to the fixture's orders the tables the schema tools are
// tested on, in each engine's SQL: a composite primary key, foreign keys
// to orders and customers, an index, allowed values and, where the engine
// keeps them, comments.
var shopDDL = map[string][]string{
	"sqlite": {
		"CREATE TABLE customers (id integer PRIMARY KEY, city text)",
		"CREATE TABLE order_lines (order_id integer NOT NULL REFERENCES orders (id), line integer NOT NULL, " +
			"customer_id integer REFERENCES customers (id), kind text CHECK (kind IN ('sale', 'refund')), PRIMARY KEY (order_id, line))",
		"CREATE INDEX order_lines_kind ON order_lines (kind)",
	},
	"postgresql": {
		"CREATE TABLE customers (id integer PRIMARY KEY, city text)",
		"CREATE TABLE order_lines (order_id integer NOT NULL REFERENCES orders (id), line integer NOT NULL, " +
			"customer_id integer REFERENCES customers (id), kind text CHECK (kind IN ('sale', 'refund')), PRIMARY KEY (order_id, line))",
		"CREATE INDEX order_lines_kind ON order_lines (kind)",
		"COMMENT ON TABLE order_lines IS 'one line of an order'",
		"COMMENT ON COLUMN order_lines.kind IS 'sale or refund'",
	},
	"mysql": {
		"CREATE TABLE customers (id integer PRIMARY KEY, city text)",
		"CREATE TABLE order_lines (order_id integer NOT NULL, line integer NOT NULL, customer_id integer, " +
			"kind enum('sale', 'refund') COMMENT 'sale or refund', PRIMARY KEY (order_id, line), " +
			"FOREIGN KEY (order_id) REFERENCES orders (id), FOREIGN KEY (customer_id) REFERENCES customers (id), " +
			"INDEX order_lines_kind (kind)) COMMENT 'one line of an order'",
	},
}

// shopFixture is a fixture whose database holds the shop: orders,
// customers (with cities in two cases and a NULL) and order_lines.
func shopFixture(t *testing.T, source func(testing.TB) sessionio.Source) *fixture {
	t.Helper()
	f := newFixture(t, fixtureOptions{source: source})
	dbtest.Exec(t, f.src, shopDDL[f.src.Type]...)
	dbtest.Exec(t, f.src,
		"INSERT INTO customers VALUES (1, 'Berlin'), (2, 'berlin'), (3, 'Berlin'), (4, NULL)",
		"INSERT INTO order_lines VALUES (1, 1, 1, 'sale'), (1, 2, 1, 'refund'), (3, 1, 2, 'sale')",
	)
	return f
}

// outputs checks results against their tools' output schemas, as the
// TypeScript SDK's client does: a result that does not match is an error
// there, and the host's model never sees it.
type outputs map[string]*jsonschema.Resolved

func newOutputs(t *testing.T, cs *sdk.ClientSession) outputs {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	o := outputs{}
	for _, tool := range list.Tools {
		data, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var schema jsonschema.Schema
		require.NoError(t, json.Unmarshal(data, &schema), tool.Name)
		resolved, err := schema.Resolve(nil)
		require.NoError(t, err, "the output schema of %s", tool.Name)
		o[tool.Name] = resolved
	}
	return o
}

// call calls a tool and checks its structuredContent, when it has one,
// against the tool's output schema.
func (o outputs) call(t *testing.T, cs *sdk.ClientSession, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.StructuredContent == nil {
		require.True(t, res.IsError, "%s gave no structuredContent: %s", tool, text(res))
		return res
	}
	require.NoError(t, o[tool].Validate(structured(t, res)), "%s: the structuredContent does not match the outputSchema", tool)
	return res
}

// cards returns describe_table's cards.
func cards(t *testing.T, res *sdk.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range structured(t, res)["tables"].([]any) {
		out = append(out, c.(string))
	}
	return out
}

// TestDescribeTableCards: describe_table gives each table's full card on
// every engine: keys, foreign keys both ways, indexes, allowed values,
// comments and the row estimate, in structuredContent and in the text;
// a name that is no table gets the closest names.
func TestDescribeTableCards(t *testing.T) {
	for _, c := range []struct {
		name   string
		source func(testing.TB) sessionio.Source
	}{{"sqlite", dbtest.SQLite}, {"postgres", dbtest.Postgres}, {"mariadb", dbtest.MariaDB}} {
		t.Run(c.name, func(t *testing.T) {
			f := shopFixture(t, c.source)
			cs := f.connect(nil)
			o := newOutputs(t, cs)

			res := o.call(t, cs, "describe_table", map[string]any{"tables": []string{"orders", "order_lines", "ordr_lines"}})
			require.False(t, res.IsError, text(res))
			m := structured(t, res)
			assert.Equal(t, "db", m["source"])
			got := cards(t, res)
			require.Len(t, got, 2)
			orders, lines := got[0], got[1]

			assert.True(t, strings.HasPrefix(orders, "table orders"), orders)
			assert.Contains(t, orders, "primary key: (id)")
			assert.Contains(t, orders, "referenced by: order_lines(order_id) -> (id)")
			assert.True(t, strings.HasPrefix(lines, "table order_lines"), lines)
			assert.Contains(t, lines, "-> orders.id")
			assert.Contains(t, lines, "primary key: (order_id, line)")
			assert.Contains(t, lines, "foreign key: (customer_id) -> customers(id)")
			assert.Contains(t, lines, "foreign key: (order_id) -> orders(id)")
			assert.Contains(t, lines, "index order_lines_kind")
			assert.Contains(t, lines, "in {sale,refund}")
			if c.name == "sqlite" {
				// SQLite has no statistics here: the estimate is a count.
				assert.True(t, strings.HasPrefix(orders, "table orders ~4 rows\n"), orders)
			} else {
				assert.Contains(t, lines, `-- "one line of an order"`)
				assert.Contains(t, lines, `"sale or refund"`)
			}
			notFound := m["not_found"].([]any)
			require.Len(t, notFound, 1)
			assert.True(t, strings.HasPrefix(notFound[0].(string), "no table `ordr_lines`; did you mean `order_lines`"), notFound[0])

			// The text: each card in a block as the model reads it, then
			// the name that is no table.
			assert.Contains(t, text(res), "```text\n"+strings.TrimSuffix(orders, "\n")+"\n```")
			assert.Contains(t, text(res), "```text\n"+strings.TrimSuffix(lines, "\n")+"\n```")
			assert.True(t, strings.HasSuffix(text(res), "```\n\nN"+notFound[0].(string)[1:]), text(res))

			// Nothing found: a failed call that names the closest.
			res = o.call(t, cs, "describe_table", map[string]any{"table": "customer"})
			assert.True(t, res.IsError)
			assert.Equal(t, "No table `customer`; did you mean `customers`?", text(res))
		})
	}
}

// TestSearchSchema finds tables by a word of their name, of a column's
// name or of a comment, plurals folded, each with its one-line card.
func TestSearchSchema(t *testing.T) {
	f := shopFixture(t, dbtest.SQLite)
	cs := f.connect(nil)
	o := newOutputs(t, cs)

	res := o.call(t, cs, "search_schema", map[string]any{"query": "lines"})
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	assert.Equal(t, "lines", m["query"])
	matches := m["matches"].([]any)
	require.NotEmpty(t, matches)
	first := matches[0].(map[string]any)
	assert.Equal(t, "order_lines", first["table"])
	assert.True(t, strings.HasPrefix(first["card"].(string), "order_lines(order_id int NOT NULL -> orders.id, "), first["card"])
	assert.Contains(t, text(res), "| order_lines | line | order_lines(order_id int NOT NULL -> orders.id, ")

	res = o.call(t, cs, "search_schema", map[string]any{"source": "db", "query": "CITY"})
	require.False(t, res.IsError, text(res))
	matches = structured(t, res)["matches"].([]any)
	require.Len(t, matches, 1)
	assert.Equal(t, "customers", matches[0].(map[string]any)["table"])
	assert.Equal(t, []any{"city"}, matches[0].(map[string]any)["matching_columns"])

	res = o.call(t, cs, "search_schema", map[string]any{"query": "invoice"})
	require.False(t, res.IsError, text(res))
	assert.Empty(t, structured(t, res)["matches"])
	assert.Equal(t, `No table or column of db matches "invoice".`, text(res))
}

// TestProfileColumn gives the counts and the most common values as the
// data writes them, so that the model filters on 'Berlin' and 'berlin'.
func TestProfileColumn(t *testing.T) {
	f := shopFixture(t, dbtest.SQLite)
	cs := f.connect(nil)
	o := newOutputs(t, cs)

	res := o.call(t, cs, "profile_column", map[string]any{"table": "customers", "column": "city"})
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	assert.Equal(t, "customers", m["table"])
	assert.Equal(t, "city", m["column"])
	assert.Equal(t, 4.0, m["rows_read"])
	assert.Equal(t, 2.0, m["distinct"])
	assert.Equal(t, 1.0, m["nulls"])
	assert.Equal(t, 0.25, m["null_fraction"])
	assert.Equal(t, "Berlin", m["min"])
	assert.Equal(t, "berlin", m["max"])
	top := m["most_common"].([]any)
	require.Len(t, top, 3)
	assert.Equal(t, map[string]any{"value": "Berlin", "count": 2.0}, top[0])
	assert.ElementsMatch(t, []any{map[string]any{"value": "berlin", "count": 1.0}, map[string]any{"value": nil, "count": 1.0}}, top[1:])
	assert.Contains(t, text(res), "Column customers.city of db: 4 row(s) read, 2 distinct, 1 null (25%).")
	assert.Contains(t, text(res), "| value | count |\n| --- | --- |\n| 'Berlin' | 2 |\n")
	assert.Contains(t, text(res), "| 'berlin' | 1 |")
	assert.Contains(t, text(res), "| NULL | 1 |")

	res = o.call(t, cs, "profile_column", map[string]any{"table": "customers", "column": "cty"})
	assert.True(t, res.IsError)
	assert.Equal(t, "No column `cty` in customers; did you mean `city`?", text(res))
	res = o.call(t, cs, "profile_column", map[string]any{"table": "customer", "column": "city"})
	assert.True(t, res.IsError)
	assert.Equal(t, "No table `customer`; did you mean `customers`?", text(res))
}

// TestExplainSQL plans a statement without running it: a DELETE leaves
// every row and asks the user nothing; several statements are refused,
// and a statement the engine cannot plan is a failed call.
func TestExplainSQL(t *testing.T) {
	for _, c := range []struct {
		name   string
		source func(testing.TB) sessionio.Source
		scan   string // what the plan text of the join holds
	}{{"sqlite", dbtest.SQLite, "SCAN"}, {"postgres", dbtest.Postgres, "Scan"}, {"mariadb", dbtest.MariaDB, "ALL"}} {
		t.Run(c.name, func(t *testing.T) {
			f := shopFixture(t, c.source)
			e := &elicitor{answer: answer("accept", "allow_once")}
			cs := f.connect(e.options())
			o := newOutputs(t, cs)

			res := o.call(t, cs, "explain_sql", map[string]any{"sql": "SELECT o.status, count(*) FROM orders o JOIN order_lines l ON l.order_id = o.id GROUP BY o.status"})
			require.False(t, res.IsError, text(res))
			m := structured(t, res)
			assert.Contains(t, m["plan"], c.scan)
			assert.Contains(t, text(res), "```text\n")
			if c.name == "postgres" {
				assert.Contains(t, m, "estimated_rows")
				assert.Contains(t, m, "cost")
				assert.Contains(t, text(res), "; cost ")
			}

			for _, sql := range []string{"DELETE FROM orders", "UPDATE orders SET status = 'lost'"} {
				res = o.call(t, cs, "explain_sql", map[string]any{"sql": sql})
				require.False(t, res.IsError, text(res))
				assert.Equal(t, sql, structured(t, res)["sql"])
				assert.True(t, strings.HasPrefix(text(res), "Plan on db, not run"), text(res))
			}
			assert.Equal(t, int64(4), f.count(), "EXPLAIN of a DELETE deleted")
			assert.Zero(t, dbtest.QueryInt(t, f.src, "SELECT count(*) FROM orders WHERE status = 'lost'"), "EXPLAIN of an UPDATE updated")

			res = o.call(t, cs, "explain_sql", map[string]any{"sql": "SELECT 1; DELETE FROM orders"})
			assert.True(t, res.IsError)
			assert.Contains(t, structured(t, res)["refused"], "more than one statement")
			assert.True(t, strings.HasPrefix(text(res), "Not explained: more than one statement"), text(res))

			res = o.call(t, cs, "explain_sql", map[string]any{"sql": "SELECT nope FROM orders"})
			assert.True(t, res.IsError)
			assert.NotEmpty(t, structured(t, res)["error"])
			assert.True(t, strings.HasPrefix(text(res), "The plan failed: "), text(res))

			assert.Equal(t, int64(4), f.count())
			assert.Empty(t, e.requests(), "planning asks the user nothing")
		})
	}
}
