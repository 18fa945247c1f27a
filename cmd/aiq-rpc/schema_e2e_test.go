package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSchemaOnEachDatabase: on each real database with the shop schema
// (composite and self-referencing keys, a unique column, an index,
// allowed values, comments, a view, quoted names, two PostgreSQL
// schemas), what the scripted model receives: the schema card in the
// system prompt and the prompt's rules, then each schema tool's result;
// and what the editor receives: each tool's one-line summary in
// chat/progress. The EXPLAIN of a DELETE leaves every row.
func TestSchemaOnEachDatabase(t *testing.T) {
	for name, open := range engines() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := open(t)
			dbtest.Shop(t, src)
			model := llmtest.NewServer(t,
				llmtest.Step{ToolCalls: []llmtest.Call{
					{ID: "d", Name: "describe_table", Arguments: `{"tables":["orders","customers"]}`},
					{ID: "s", Name: "search_schema", Arguments: `{"query":"lines"}`},
					{ID: "p", Name: "profile_column", Arguments: `{"table":"customers","column":"name"}`},
					{ID: "x", Name: "explain_sql", Arguments: `{"sql":"DELETE FROM customers"}`},
					{ID: "o", Name: "describe_table", Arguments: `{"table":"order"}`},
					{ID: "l", Name: "list_tables", Arguments: `{}`},
				}},
				llmtest.Step{Text: "Done."})
			p := startOnSource(t, src, model)
			p.client.Result("initialize", map[string]any{}, nil)
			var ans conversation.Answer
			p.client.Result("chat/turn", map[string]any{"query": "which customers ordered the most?"}, &ans)

			reqs := model.Requests()
			require.Len(t, reqs, 2)
			system := reqs[0].Messages[0]
			require.Equal(t, "system", system.Role)
			for _, want := range []string{
				"customers(id int PK, email ",
				"referred_by int -> customers.id)",
				"customer_id int NOT NULL -> customers.id",
				"in {open,paid,shipped}",
				"in {web,shop}",
				"total_cents int indexed",
				", PK (order_id, line_no))",
				", (order_id, line_no) -> order_lines(order_id, line_no))",
				"view big_orders(",
				"Join tables along the foreign keys the schema shows",
				"call profile_column",
				"call search_schema",
			} {
				assert.Contains(t, system.Content, want)
			}
			if src.Type != sessionio.TypeSQLite {
				assert.Contains(t, system.Content, `-- "one row per buyer"`)
				assert.Contains(t, system.Content, `"login address"`)
			}
			if src.Type == sessionio.TypePostgreSQL {
				assert.Contains(t, system.Content, "audit.events(id int PK, order_id int -> orders.id)")
				assert.Contains(t, system.Content, `"Odd Name"(id int PK, "select" int, "bücher" text)`)
			}
			assert.Contains(t, reqs[0].Tools, "explain_sql")

			results := map[string]string{}
			for _, m := range reqs[1].Messages {
				if m.Role == "tool" {
					results[m.ToolCallID] = m.Content
				}
			}
			assert.Contains(t, results["d"], `referenced by: orders(customer_id) -> (id)`)
			assert.Contains(t, results["d"], `referenced by: customers(referred_by) -> (id)`)
			assert.Contains(t, results["s"], `"table":"order_lines"`)
			assert.Contains(t, results["p"], `"distinct":3`)
			assert.Contains(t, results["p"], `"most_common":[`)
			assert.Contains(t, results["x"], `"plan":`)
			assert.NotContains(t, results["x"], `"refused"`)
			assert.Contains(t, results["o"], "no table `order`; did you mean `orders`")

			for _, summary := range []string{
				`"summary":"orders: 5 columns, PK id, 1 foreign key`,
				`"summary":"search \"lines\": 2 tables (order_lines, shipments)"`,
				`"summary":"customers.name: 3 distinct, 0% null`,
				`"summary":"plan: `,
				`"summary":"no table order"`,
				`"summary":"6 tables: `,
			} {
				if src.Type == sessionio.TypePostgreSQL && strings.HasPrefix(summary, `"summary":"6 tables`) {
					summary = `"summary":"7 tables: `
				}
				p.client.WaitNotification("chat/progress", summary)
			}
			assert.EqualValues(t, 3, dbtest.QueryInt(t, src, "SELECT count(*) FROM customers"), "EXPLAIN of a DELETE left every row")
		})
	}
}

// TestAskShowsToolSummaries: in the terminal, a schema tool's result is
// its one-line summary, not "The tool ... finished".
func TestAskShowsToolSummaries(t *testing.T) {
	h, _ := askHome(t,
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "d", Name: "describe_table", Arguments: `{"table":"customers"}`}}},
		llmtest.Step{Text: "Read it."})
	src := dbtest.SQLite(t)
	dbtest.Shop(t, src)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "what is in customers?")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n→ customers: 4 columns, PK id, 1 foreign key, ~3 rows\n")
	assert.NotContains(t, out, "finished")
}

// TestSchemaUnreadable: when the catalog cannot be read, the card says so
// and why, and the turn goes on.
func TestSchemaUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-a-database.sqlite")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("this is not SQLite\n", 200)), 0o600))
	model := llmtest.NewServer(t, llmtest.Step{Text: "I cannot see the tables."})
	p := startOnSource(t, sessionio.Source{Type: sessionio.TypeSQLite, Database: path}, model)
	p.client.Result("initialize", map[string]any{}, nil)
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "what tables are there?"}, &ans)
	assert.Equal(t, "I cannot see the tables.", ans.Answer)
	reqs := model.Requests()
	require.Len(t, reqs, 1)
	system := reqs[0].Messages[0].Content
	assert.Contains(t, system, "Its schema could not be read (")
	assert.Contains(t, system, "not a database")
}
