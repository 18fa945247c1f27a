package conversation_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// callWorkspace is a workspace on a SQLite database "db" and a second
// source, with no default.
func callWorkspace(t *testing.T) (*conversation.Workspace, sessionio.Home, sessionio.Source) {
	src := dbtest.SQLite(t)
	src.Name = "db"
	dbtest.Exec(t, src, "CREATE TABLE t (id integer PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)")
	home := sessionio.Home{Dir: t.TempDir()}
	other := dbtest.SQLite(t)
	other.Name = "other"
	day := time.Date(2026, 11, 26, 12, 0, 0, 0, time.Local)
	ws := conversation.NewWorkspace(conversation.Config{
		Home:    home,
		Sources: func() ([]sessionio.Source, error) { return []sessionio.Source{src, other}, nil },
		Now:     func() time.Time { return day },
	})
	t.Cleanup(func() { ws.Close() })
	return ws, home, src
}

// TestCall runs tool calls without a model: the result is the chat's, a
// write is refused without a confirmer, and each call is one turn of the
// day's log, which the CLI loads.
func TestCall(t *testing.T) {
	ws, home, src := callWorkspace(t)
	ctx := context.Background()

	_, err := ws.Call(ctx, conversation.Call{Tool: "list_tables"})
	require.ErrorIs(t, err, conversation.ErrSourceUnavailable, "two sources and no default")
	assert.Contains(t, err.Error(), "db, other")

	r, err := ws.Call(ctx, conversation.Call{Source: "db", Tool: "execute_sql", Args: json.RawMessage(`{"sql":"SELECT count(*) AS n FROM t"}`), Log: "mcp"})
	require.NoError(t, err)
	require.NoError(t, r.Err)
	assert.False(t, r.Failed())
	assert.JSONEq(t, `{"status":"success","row_count":1,"columns":["n"],"rows":[[2]],"truncated":false}`, r.Content)

	r, err = ws.Call(ctx, conversation.Call{Source: "db", Tool: "execute_sql", Args: json.RawMessage(`{"sql":"DELETE FROM t"}`), Log: "mcp"})
	require.NoError(t, err)
	assert.True(t, r.Failed())
	assert.EqualValues(t, 2, dbtest.QueryInt(t, src, "SELECT count(*) FROM t"))

	r, err = ws.Call(ctx, conversation.Call{Source: "db", Tool: "render_charts", Log: "mcp"})
	require.NoError(t, err)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), `there is no tool "render_charts"`)

	path := filepath.Join(home.SessionsDir(), "mcp_20261126_db.json")
	assert.Equal(t, path, r.LoggedTo)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Turns())

	list, err := conversation.ListSessions(home.SessionsDir())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.True(t, list[0].CallLog, "the list says the log is one")
	assert.False(t, list[0].Latest, "an editor must not reopen a log of calls as its conversation")
}
