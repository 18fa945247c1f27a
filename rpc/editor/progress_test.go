package editor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
)

// TestRowsProgress checks the wire form of the first page of a running
// statement: a chat/progress of kind "rows" with the call's tool and id,
// after its tool_call and before its tool_result.
func TestRowsProgress(t *testing.T) {
	model := &modeltest.Model{Steps: []modeltest.Step{
		modeltest.Call("c1", "execute_sql", `{"sql":"SELECT id, name FROM t"}`),
		modeltest.Answer("Three rows."),
	}}
	result := sqlTool(3)
	tool := func(ctx context.Context, args json.RawMessage) (any, error) {
		conversation.ReportRows(ctx, conversation.Statement{SQL: "SELECT id, name FROM t", Status: "running", RowCount: 2,
			Columns: []string{"id", "name"}, Rows: [][]any{{1, "name 1"}}, Truncated: true})
		return result(ctx, args)
	}
	f := start(t, fixtureOptions{model: model, tools: modeltest.Tools{"execute_sql": tool}})
	var ans conversation.Answer
	f.client.Result("chat/turn", map[string]any{"query": "what is in t?"}, &ans)

	var kinds []string
	var rows json.RawMessage
	for _, m := range f.client.Notifications("chat/progress") {
		var p struct{ Kind string }
		require.NoError(t, json.Unmarshal(m.Params, &p))
		kinds = append(kinds, p.Kind)
		if p.Kind == "rows" {
			rows = m.Params
		}
	}
	require.GreaterOrEqual(t, len(kinds), 3, kinds)
	assert.Equal(t, []string{"tool_call", "rows", "tool_result"}, kinds[:3])
	assert.JSONEq(t, `{"sessionId":"`+ans.SessionID+`","requestId":2,"kind":"rows","tool":"execute_sql","callId":"c1",
		"statement":{"sql":"SELECT id, name FROM t","status":"running","rowCount":2,"columns":["id","name"],
		"rows":[[1,"name 1"]],"truncated":true,"callId":"c1"}}`, string(rows))
}
