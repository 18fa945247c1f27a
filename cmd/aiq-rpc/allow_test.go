package main

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestScopedAllowanceOnEachDatabase answers "Allow always" to a one-row
// UPDATE through chat/confirm, on each real database: a later UPDATE of
// the same table runs without asking, while a DELETE without WHERE, a
// DROP and an UPDATE of another table each ask again (and are rejected);
// chat/allowances lists the allowance and chat/revoke ends it.
func TestScopedAllowanceOnEachDatabase(t *testing.T) {
	for name, open := range engines() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := open(t)
			seedSales(t, src)
			dbtest.Exec(t, src, "CREATE TABLE notes (id integer PRIMARY KEY, body varchar(20))", "INSERT INTO notes VALUES (1, 'a')")
			model := llmtest.NewServer(t)
			turns := []string{
				"UPDATE sales SET amount = 1 WHERE id = 1",
				"UPDATE sales SET amount = 2 WHERE id = 2",
				"DELETE FROM sales",
				"DROP TABLE sales",
				"UPDATE notes SET body = 'b' WHERE id = 1",
				"UPDATE sales SET amount = 3 WHERE id = 3",
			}
			for _, sql := range turns {
				model.Add(llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_1", Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": sql})}}},
					llmtest.Step{Text: "Done."})
			}
			p := startOnSource(t, src, model)
			p.client.Result("initialize", map[string]any{"capabilities": map[string]bool{"confirm": true}}, nil)
			var mu sync.Mutex
			decision := "allow_always"
			type asked struct {
				SQL, Scope, DryRun string
				AffectedRows       *int64
			}
			var asks []asked
			p.client.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
				var req asked
				json.Unmarshal(params, &req)
				mu.Lock()
				defer mu.Unlock()
				asks = append(asks, req)
				d := decision
				decision = "reject"
				return map[string]string{"decision": d}, nil
			})
			var info conversation.Info
			p.client.Result("session/new", map[string]any{}, &info)
			status := make([]string, len(turns))
			for i := range turns {
				if i == len(turns)-1 {
					var list struct {
						Allowances []struct{ ID, Scope string }
					}
					p.client.Result("chat/allowances", map[string]any{"sessionId": info.SessionID}, &list)
					require.Len(t, list.Allowances, 1)
					assert.Equal(t, "Allow UPDATE on sales, up to 10 rows at a time, for this conversation", list.Allowances[0].Scope)
					p.client.Result("chat/revoke", map[string]any{"sessionId": info.SessionID, "id": list.Allowances[0].ID}, &list)
					assert.Empty(t, list.Allowances)
					m := p.client.Call("chat/revoke", map[string]any{"sessionId": info.SessionID, "id": "a99"})
					require.NotNil(t, m.Error, "revoking an unknown allowance")
					assert.Contains(t, m.Error.Message, `no allowance "a99"`)
				}
				var ans conversation.Answer
				p.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "go on"}, &ans)
				require.Len(t, ans.Statements, 1)
				status[i] = ans.Statements[0].Status
			}
			assert.Equal(t, []string{"success", "success", "rejected", "rejected", "rejected", "rejected"}, status)
			mu.Lock()
			defer mu.Unlock()
			n := func(v int64) *int64 { return &v }
			// Each write was counted in a transaction rolled back first;
			// DELETE FROM sales would remove all 10 rows, DROP is not counted.
			assert.Equal(t, []asked{
				{turns[0], "Allow UPDATE on sales, up to 10 rows at a time, for this conversation", "ok", n(1)},
				{turns[2], "", "ok", n(10)},
				{turns[3], "", "skipped", nil},
				{turns[4], "Allow UPDATE on notes, up to 10 rows at a time, for this conversation", "ok", n(1)},
				{turns[5], "Allow UPDATE on sales, up to 10 rows at a time, for this conversation", "ok", n(1)},
			}, asks)
			assert.EqualValues(t, 10, dbtest.QueryInt(t, src, "SELECT count(*) FROM sales"))
			assert.EqualValues(t, 2, dbtest.QueryInt(t, src, "SELECT amount FROM sales WHERE id = 2"))
			assert.EqualValues(t, 100, dbtest.QueryInt(t, src, "SELECT amount FROM sales WHERE id = 3"))
		})
	}
}
