package editor_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestStatementWarnings: what MariaDB says about a statement besides its
// result (SHOW WARNINGS: a value truncated, a recursive CTE cut at
// max_recursive_iterations) reaches the user in chat/turn's statements
// and in chat/progress, not only the model.
func TestStatementWarnings(t *testing.T) {
	src := dbtest.MariaDB(t)
	src.Name = "db"
	srv := llmtest.NewServer(t)
	model, err := llm.New(llm.Config{URL: srv.URL, Model: "test"})
	require.NoError(t, err)
	c := startReal(t, src, model, nil)
	call := func(id, sql string) llmtest.Step {
		return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: "execute_sql", Arguments: mustJSON(t, map[string]string{"sql": sql})}}}
	}
	srv.Add(
		call("c1", "SELECT CAST('abcdef' AS CHAR(2)) AS x"),
		call("c2", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r"),
		llmtest.Step{Text: "Done."},
	)
	var info conversation.Info
	c.Result("session/new", nil, &info)
	resp := c.Call("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "try it"})
	require.Nil(t, resp.Error)
	var turn struct {
		Statements []struct {
			SQL      string   `json:"sql"`
			Status   string   `json:"status"`
			Warnings []string `json:"warnings"`
		} `json:"statements"`
	}
	require.NoError(t, json.Unmarshal(resp.Result, &turn))
	require.Len(t, turn.Statements, 2, "%s", resp.Result)
	for _, st := range turn.Statements {
		assert.Equal(t, "success", st.Status, st.SQL)
	}
	assert.Contains(t, strings.Join(turn.Statements[0].Warnings, "\n"), "Truncated", "the truncation: %s", resp.Result)
	assert.Contains(t, strings.Join(turn.Statements[1].Warnings, "\n"), "max_recursive_iterations", "the recursion cut off: %s", resp.Result)

	progress := false
	for _, m := range c.Messages() {
		if m.Method == "chat/progress" && strings.Contains(string(m.Params), `"warnings":[`) && strings.Contains(string(m.Params), "Truncated") {
			progress = true
		}
	}
	assert.True(t, progress, "chat/progress's statement carries the warnings")
}
