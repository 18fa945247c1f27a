package llm

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// TestRunnerTurn runs a whole turn of the conversation loop against the
// scripted server: a call without an id, its result, and the answer.
func TestRunnerTurn(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Step{Body: llmtest.SSE(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"execute_sql","arguments":{"sql":"SELECT 2"}}}]},"finish_reason":"tool_calls"}]}`)},
		llmtest.Step{Text: "There are 2 customers."})
	sqlTools := modeltest.Tools{"execute_sql": func(ctx context.Context, args json.RawMessage) (any, error) {
		return map[string]any{"status": "success", "rows": [][]any{{2}}}, nil
	}}
	r := &conversation.Runner{Model: newTestModel(t, srv.URL).Model, Tools: sqlTools}
	s := conversation.NewSession("shop", "sqlite", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
	res, err := r.Run(t.Context(), s, conversation.Turn{System: "You answer questions.", User: "How many customers?"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "There are 2 customers.", res.Answer)
	require.Len(t, res.Outcomes, 1)
	assert.JSONEq(t, `{"sql":"SELECT 2"}`, string(res.Outcomes[0].Args))

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	second := reqs[1].Messages
	require.Len(t, second, 4)
	assert.Equal(t, "assistant", second[2].Role)
	require.Len(t, second[2].ToolCalls, 1)
	id := second[2].ToolCalls[0].ID
	assert.NotEmpty(t, id, "the runner gave the call an id")
	assert.Equal(t, id, second[3].ToolCallID)
	inner, ok := guard.Unfence(second[3].Content)
	require.True(t, ok, "the tool result reaches the model fenced as data: %s", second[3].Content)
	assert.JSONEq(t, `{"status":"success","rows":[[2]]}`, inner)
}
