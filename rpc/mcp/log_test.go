package mcp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/mcp"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// TestCallLog: each call is one turn of mcp_YYYYMMDD_<source>.json, in the
// CLI's format, with the statement and its result; a file already there
// is added to, not replaced.
func TestCallLog(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	e := &elicitor{answer: personAnswer("decline", "")}
	cs := f.connect(e.options())
	call(t, cs, "execute_sql", map[string]any{"sql": "SELECT count(*) AS n FROM orders"})
	call(t, cs, "execute_sql", map[string]any{"sql": deleteSQL})
	call(t, cs, "list_sources", nil) // touches no database: not logged

	files, err := filepath.Glob(filepath.Join(f.home.SessionsDir(), "mcp_*_db.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Regexp(t, `mcp_\d{8}_db\.json$`, files[0])
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))

	s, warnings, err := conversation.Load(files[0])
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, 2, s.Turns())
	assert.Equal(t, "db", s.Source)
	// Each turn: the statement, the call, its result, an empty answer.
	require.Len(t, s.History, 8)
	assert.Equal(t, "SELECT count(*) AS n FROM orders", s.History[0].Content)
	assert.Contains(t, s.History[2].Content, `"row_count":1`)
	assert.Equal(t, deleteSQL, s.History[4].Content)
	assert.Contains(t, s.History[6].Content, "declined")
	assert.NotEqual(t, s.History[1].ToolCalls[0].ID, s.History[5].ToolCalls[0].ID, "each call has an id of its own")

	// A second server, as after a restart, adds to the same file.
	g := &fixture{t: t, home: f.home, src: f.src, log: f.log, wire: f.wire}
	g.ws = conversation.NewWorkspace(conversation.Config{Home: f.home, DefaultSource: "db"})
	t.Cleanup(func() { g.ws.Close() })
	g.srv = mcp.New(g.ws, mcp.Options{Name: "aiq-rpc", Version: "test", Home: f.home})
	call(t, g.connect(nil), "list_tables", nil)
	s, _, err = conversation.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, 3, s.Turns())
}

// TestCallLogOff: with NoLog, no file is written.
func TestCallLogOff(t *testing.T) {
	f := newFixture(t, fixtureOptions{server: mcp.Options{NoLog: true}})
	call(t, f.connect(nil), "execute_sql", map[string]any{"sql": "SELECT 1"})
	files, _ := filepath.Glob(filepath.Join(f.home.SessionsDir(), "*"))
	assert.Empty(t, files)
}
