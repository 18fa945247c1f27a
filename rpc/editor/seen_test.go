package editor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSeenAfterRestart: a masked result of 100 rows comes back from
// chat/history, after the server is restarted on the same home, as the
// editor got it: its real values, every row it was sent and the row
// count, in seen, apart from the messages. The seen file is 0600 and goes
// with its session when saved elsewhere, cleared or deleted; the session
// file and every request to the model hold no masked value.
func TestSeenAfterRestart(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text, city text)",
		"INSERT INTO customers WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) "+
			"SELECT n, 'user' || n || '@example.com', 'Oslo' FROM c",
	)
	src.Mask = []string{"customers.email"}
	const sql = "SELECT id, email, city FROM customers ORDER BY id"
	srv := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "c1", Name: "execute_sql", Arguments: mustJSON(t, map[string]string{"sql": sql})}}},
		llmtest.Step{Text: "Here they are."},
	)
	model, err := llm.New(llm.Config{URL: srv.URL, Model: "test"})
	require.NoError(t, err)
	home := sessionio.Home{Dir: t.TempDir()}

	c, stop := startRealHome(t, home, src, model, map[string]bool{"confirm": true, "rowsOnce": true})
	var info conversation.Info
	c.Result("session/new", nil, &info)
	var ans struct {
		SavedTo string `json:"savedTo"`
	}
	c.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "who are the customers?"}, &ans)
	require.NotEmpty(t, ans.SavedTo)
	var shown [][]any // the rows the editor got, in rows or tool_result
	for _, m := range c.Messages() {
		var p struct {
			Kind      string `json:"kind"`
			Statement struct {
				Rows [][]any `json:"rows"`
			} `json:"statement"`
		}
		if m.Method == "chat/progress" && json.Unmarshal(m.Params, &p) == nil && len(p.Statement.Rows) > 0 {
			shown = p.Statement.Rows
		}
	}
	require.Len(t, shown, 100, "the editor got every row")
	assert.Equal(t, "user7@example.com", shown[6][1])
	stop()

	// The server again, on the same home, as after a reload.
	c, stop = startRealHome(t, home, src, model, map[string]bool{"confirm": true})
	defer stop()
	var latest struct {
		Sessions []conversation.Listed `json:"sessions"`
	}
	c.Result("session/list", map[string]any{"latestFor": src.Name}, &latest)
	require.Len(t, latest.Sessions, 1)
	path := latest.Sessions[0].Path
	require.Equal(t, ans.SavedTo, path)
	var loaded conversation.LoadInfo
	c.Result("session/load", map[string]any{"path": path}, &loaded)
	type seenResult struct {
		Columns  []string `json:"columns"`
		Rows     [][]any  `json:"rows"`
		RowCount int64    `json:"rowCount"`
		RowsKept bool     `json:"rowsKept"`
	}
	var h struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Seen map[string]seenResult `json:"seen"`
	}
	c.Result("chat/history", map[string]any{"sessionId": loaded.SessionID, "detail": "full"}, &h)
	require.Contains(t, h.Seen, "c1", "chat/history: seen")
	seen := h.Seen["c1"]
	assert.Equal(t, []string{"id", "email", "city"}, seen.Columns)
	assert.Equal(t, int64(100), seen.RowCount)
	assert.True(t, seen.RowsKept)
	assert.Equal(t, shown, seen.Rows, "the rows come back as the editor got them, real values and all")
	for _, m := range h.Messages {
		assert.NotContains(t, m.Content, "@example.com", "a message of the history holds a masked value")
	}

	// The seen file: beside the session, 0600, with the real values; the
	// session file and the model's requests hold none.
	fi, err := os.Stat(sessionio.SeenPath(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	session, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(session), "@example.com", "the session file holds a masked value")
	assert.NotContains(t, string(session), `"seen"`)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.NotContains(t, string(r.Body), "@example.com", "request %d to the model holds a masked value", r.N)
	}
	var listed struct {
		Sessions []conversation.Listed `json:"sessions"`
	}
	c.Result("session/list", nil, &listed)
	require.Len(t, listed.Sessions, 1, "the seen file is not listed as a session")

	// Saved elsewhere, the session takes what was seen with it.
	other := filepath.Join(t.TempDir(), "kept.json")
	c.Result("session/save", map[string]any{"sessionId": loaded.SessionID, "path": other}, nil)
	fi, err = os.Stat(sessionio.SeenPath(other))
	require.NoError(t, err, "save as writes the seen file beside the new file")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	c.Result("chat/clear", map[string]any{"sessionId": loaded.SessionID}, nil)
	assert.NoFileExists(t, sessionio.SeenPath(other), "clear removes what was seen")

	// The session deleted by hand: the next list removes its seen file.
	require.FileExists(t, sessionio.SeenPath(path))
	require.NoError(t, os.Remove(path))
	c.Result("session/list", nil, &listed)
	assert.Empty(t, listed.Sessions)
	assert.NoFileExists(t, sessionio.SeenPath(path), "a deleted session's seen file goes with it")
	entries, err := os.ReadDir(home.SessionsDir())
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), sessionio.SeenSuffix), "left: %s", e.Name())
	}
}
