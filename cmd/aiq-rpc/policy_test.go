package main

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSourcePolicyThroughEditor: sources.yaml's access and label, read by
// the binary: a read_only source refuses a write without a chat/confirm
// and tells the model why; a production source's chat/confirm carries the
// label and no scope; sources/list shows both.
func TestSourcePolicyThroughEditor(t *testing.T) {
	for _, c := range []struct{ policy, want string }{
		{"  access: read_only\n", "rejected"},
		{"  label: production\n", "success"},
	} {
		t.Run(c.want, func(t *testing.T) {
			src := dbtest.SQLite(t)
			seedSales(t, src)
			model := llmtest.NewServer(t,
				llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_1", Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": "DELETE FROM sales WHERE id = 1"})}}},
				llmtest.Step{Text: "Done."})
			h := home{Dir: t.TempDir()}.withModel(t, model.URL)
			h.writeFile(t, "config/sources.yaml", sourcesYAML(src)+c.policy)
			p := startProc(t, h, procOptions{args: []string{"--source", "db"}})
			p.client.Result("initialize", map[string]any{"capabilities": map[string]bool{"confirm": true}}, nil)
			confirms := recordConfirms(p.client, "allow_always")
			var sources struct {
				Sources []struct{ Name, Access, Label string }
			}
			p.client.Result("sources/list", map[string]any{}, &sources)
			require.Len(t, sources.Sources, 1)
			var ans conversation.Answer
			p.client.Result("chat/turn", map[string]any{"query": "delete sale 1"}, &ans)
			require.Len(t, ans.Statements, 1)
			assert.Equal(t, c.want, ans.Statements[0].Status, ans.Statements[0].Error)
			asked := confirms.requests()
			if c.want == "rejected" {
				assert.Equal(t, "read_only", sources.Sources[0].Access)
				assert.Empty(t, asked, "a read_only source asked")
				assert.Contains(t, ans.Statements[0].Error, "read-only")
				assert.Contains(t, toolResult(t, model, 1), "read-only", "the model is told why")
				assert.EqualValues(t, 10, dbtest.QueryInt(t, src, "SELECT count(*) FROM sales"))
				return
			}
			assert.Equal(t, "production", sources.Sources[0].Label)
			require.Len(t, asked, 1)
			assert.Equal(t, "production", asked[0]["label"])
			assert.NotContains(t, asked[0], "scope", "Allow always is not offered on production")
		})
	}
}

// TestCostGateThroughEditor: on PostgreSQL, a cross join the planner
// estimates at 10,000,000,000 rows asks through chat/confirm with risk
// "cost" before it runs; rejected, it does not run.
func TestCostGateThroughEditor(t *testing.T) {
	src := dbtest.Postgres(t)
	const costly = "SELECT a, b FROM generate_series(1, 100000) a, generate_series(1, 100000) b"
	model := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_1", Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": costly})}}},
		llmtest.Step{Text: "Not run."})
	p := startOnSource(t, src, model)
	p.client.Result("initialize", map[string]any{"capabilities": map[string]bool{"confirm": true}}, nil)
	confirms := recordConfirms(p.client, "reject")
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "all pairs"}, &ans)
	require.Len(t, ans.Statements, 1)
	assert.Equal(t, "rejected", ans.Statements[0].Status)
	asked := confirms.requests()
	require.Len(t, asked, 1)
	assert.Equal(t, "cost", asked[0]["risk"])
	assert.Contains(t, asked[0]["reason"], "10,000,000,000 rows, above this source's limit of 10,000,000")
}

// confirmRecorder answers every chat/confirm with one decision and keeps
// the requests.
type confirmRecorder struct {
	mu    sync.Mutex
	asked []map[string]any
}

func recordConfirms(c *editortest.Client, decision string) *confirmRecorder {
	r := &confirmRecorder{}
	c.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
		var req map[string]any
		json.Unmarshal(params, &req)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.asked = append(r.asked, req)
		return map[string]string{"decision": decision}, nil
	})
	return r
}

// requests are the chat/confirm requests so far.
func (r *confirmRecorder) requests() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}
