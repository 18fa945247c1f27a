package conversation

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestCallLogsOfEarlierDaysLetGo: a server that runs for days keeps in
// memory only the logs of the day it writes to, not every day's.
func TestCallLogsOfEarlierDaysLetGo(t *testing.T) {
	src := dbtest.SQLite(t)
	src.Name = "db"
	home := sessionio.Home{Dir: t.TempDir()}
	day := time.Date(2026, 11, 25, 23, 59, 0, 0, time.Local)
	ws := NewWorkspace(Config{
		Home:    home,
		Sources: func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
		Now:     func() time.Time { return day },
	})
	t.Cleanup(func() { ws.Close() })
	for range 2 {
		r, err := ws.Call(context.Background(), Call{Tool: "execute_sql", Args: json.RawMessage(`{"sql":"SELECT 1"}`), Log: "mcp"})
		require.NoError(t, err)
		require.NoError(t, r.LogError)
		day = day.Add(2 * time.Minute) // the next day
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var kept []string
	for p := range ws.logs {
		kept = append(kept, filepath.Base(p))
	}
	assert.Equal(t, []string{"mcp_20261126_db"}, kept)
}

// TestCallLogRemoved: a log removed during the day is started again by
// the next call; one that is not a log is left as it is and the next name
// takes the calls.
func TestCallLogRemoved(t *testing.T) {
	src := dbtest.SQLite(t)
	src.Name = "db"
	home := sessionio.Home{Dir: t.TempDir()}
	day := time.Date(2026, 11, 25, 12, 0, 0, 0, time.Local)
	ws := NewWorkspace(Config{Home: home, Sources: func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
		Now: func() time.Time { return day }})
	t.Cleanup(func() { ws.Close() })
	call := func() string {
		r, err := ws.Call(context.Background(), Call{Tool: "execute_sql", Args: json.RawMessage(`{"sql":"SELECT 1"}`), Log: "mcp"})
		require.NoError(t, err)
		require.NoError(t, r.LogError)
		return r.LoggedTo
	}
	path := call()
	require.NoError(t, os.Remove(path))
	assert.Equal(t, path, call())
	s, _, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Turns())

	require.NoError(t, os.WriteFile(path, []byte("not a log\n"), 0o600))
	next := call()
	assert.Equal(t, filepath.Join(filepath.Dir(path), "mcp_20261125_db_2.json"), next)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "not a log\n", string(data))
}
