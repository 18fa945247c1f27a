package conversation

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestCancelledCallIsLogged: a call whose context ends while it runs (here
// while it waits for the user's answer, as when an MCP host goes away)
// comes back with its status, cancelled, and is in the log like any
// other: the log is what the host's agent did to the database.
func TestCancelledCallIsLogged(t *testing.T) {
	src := dbtest.SQLite(t)
	src.Name = "db"
	dbtest.Exec(t, src, "CREATE TABLE t (id integer PRIMARY KEY)", "INSERT INTO t VALUES (1)")
	ws := NewWorkspace(Config{
		Home:    sessionio.Home{Dir: t.TempDir()},
		Sources: func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
	})
	t.Cleanup(func() { ws.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	confirm := func(context.Context, ConfirmRequest) (Decision, error) {
		cancel() // the host went away while the user was being asked
		return AllowOnce, nil
	}
	r, err := ws.Call(ctx, Call{Tool: "execute_sql", Args: json.RawMessage(`{"sql":"DELETE FROM t"}`), Confirm: confirm, Log: "mcp"})
	require.NoError(t, err)
	require.True(t, r.Failed())
	assert.Equal(t, "cancelled", r.Result.(SQLResult).Statement.Status)
	require.NoError(t, r.LogError)
	require.NotEmpty(t, r.LoggedTo)
	data, err := os.ReadFile(r.LoggedTo)
	require.NoError(t, err)
	assert.Contains(t, string(data), "DELETE FROM t")
	assert.Contains(t, string(data), `\"status\":\"cancelled\"`)
	assert.EqualValues(t, 1, dbtest.QueryInt(t, src, "SELECT count(*) FROM t"), "nothing ran")

	_, err = ws.Call(ctx, Call{Tool: "execute_sql", Args: json.RawMessage(`{"sql":"SELECT 1"}`), Log: "mcp"})
	assert.ErrorIs(t, err, context.Canceled, "a call that starts cancelled does not run")
}
