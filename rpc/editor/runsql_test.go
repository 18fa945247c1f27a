package editor_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

type runSQLAnswer struct {
	conversation.Answer
	Statement conversation.Statement `json:"statement"`
}

// TestRunSQL runs statements without the model on a real SQLite database:
// a read, a write that is confirmed only the second time, several
// statements at once, and bad input. Each ran statement is a turn of the
// session, in a file the AIQ CLI loads; the model is never asked.
func TestRunSQL(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Seed(t, src)
	model := &modeltest.Model{} // no steps: a request would fail the turn
	c := startReal(t, src, model, map[string]bool{"confirm": true})
	asked := confirmWith(t, c, conversation.Reject, conversation.AllowOnce)
	var info conversation.Info
	c.Result("session/new", nil, &info)
	run := func(sql string) runSQLAnswer {
		t.Helper()
		var ans runSQLAnswer
		c.Result("chat/runSql", map[string]any{"sessionId": info.SessionID, "sql": sql}, &ans)
		return ans
	}

	read := run("SELECT id, name FROM t ORDER BY id")
	assert.Equal(t, "success", read.Statement.Status)
	assert.Equal(t, int64(3), read.Statement.RowCount)
	assert.Len(t, read.Statement.Rows, 3)
	assert.Equal(t, "end_turn", read.StopReason)
	require.NotEmpty(t, read.SavedTo)

	rejected := run("DELETE FROM t WHERE id = 1")
	assert.Equal(t, "rejected", rejected.Statement.Status)
	assert.Equal(t, int64(3), dbtest.QueryInt(t, src, "SELECT count(*) FROM t"), "a rejected write changes nothing")
	allowed := run("DELETE FROM t WHERE id = 1")
	assert.Equal(t, "success", allowed.Statement.Status)
	assert.Equal(t, int64(2), dbtest.QueryInt(t, src, "SELECT count(*) FROM t"))
	require.Len(t, *asked, 2, "each write asked chat/confirm")
	assert.Equal(t, "write", (*asked)[0].Risk)

	several := run("SELECT 1; DELETE FROM t")
	assert.Equal(t, "error", several.Statement.Status, "several statements are refused as for the model")
	assert.Contains(t, several.Statement.Error, "one statement")
	assert.Len(t, *asked, 2, "nothing asked for refused statements")
	assert.Equal(t, int64(2), dbtest.QueryInt(t, src, "SELECT count(*) FROM t"))

	// Each statement a turn of its own, with a call id of its own, in a
	// file the CLI loads; the model was never asked.
	assert.Empty(t, model.Requests())
	var hist struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	c.Result("chat/history", map[string]any{"sessionId": info.SessionID, "detail": "full"}, &hist)
	ids := map[string]bool{}
	users := 0
	for _, m := range hist.Messages {
		if m.Role == "user" {
			users++
		}
		for _, call := range m.ToolCalls {
			assert.False(t, ids[call.ID], "call id %s used twice", call.ID)
			ids[call.ID] = true
		}
	}
	assert.Equal(t, 4, users)
	assert.Len(t, ids, 4)
	data, err := os.ReadFile(several.SavedTo)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))

	// Bad input: a clear error, and the server goes on.
	for _, bad := range []struct {
		params map[string]any
		code   int
	}{
		{map[string]any{"sessionId": info.SessionID}, -32602},
		{map[string]any{"sessionId": info.SessionID, "sql": "  "}, -32602},
		{map[string]any{"sql": "SELECT 1"}, -32602},
		{map[string]any{"sessionId": "s99", "sql": "SELECT 1"}, -32001},
	} {
		m := c.Call("chat/runSql", bad.params)
		require.NotNil(t, m.Error, "%v", bad.params)
		assert.Equal(t, bad.code, m.Error.Code, "%v: %s", bad.params, m.Error.Message)
	}
	assert.Equal(t, "success", run("SELECT count(*) FROM t").Statement.Status)
}

// confirmWith answers each chat/confirm c gets with the next of
// decisions, and returns the requests asked, in order.
func confirmWith(t *testing.T, c *editortest.Client, decisions ...conversation.Decision) *[]conversation.ConfirmRequest {
	var asked []conversation.ConfirmRequest
	c.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
		var req conversation.ConfirmRequest
		require.NoError(t, json.Unmarshal(params, &req))
		asked = append(asked, req)
		require.NotEmpty(t, decisions, "a chat/confirm more than the test expects: %+v", req)
		d := decisions[0]
		decisions = decisions[1:]
		return map[string]any{"decision": d}, nil
	})
	return &asked
}
