package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// mcpSession starts `aiq-rpc mcp` on h's source db and connects the Go
// SDK's client to it; the process is the returned command's.
func mcpSession(t testing.TB, h home, extra ...string) (*sdk.ClientSession, *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, binary, append([]string{"mcp", "--home", h.Dir, "--source", "db"}, extra...)...)
	cmd.Env = childEnv()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	return cs, cmd
}

// selectN calls execute_sql with SELECT n and checks the answer.
func selectN(t testing.TB, cs *sdk.ClientSession, n int) {
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "execute_sql",
		Arguments: map[string]any{"sql": fmt.Sprintf("SELECT %d AS n", n)}})
	if assert.NoError(t, err) {
		assert.False(t, res.IsError, "SELECT %d", n)
	}
}

// loggedCalls loads every call log of the home, checks each against the
// CLI's load rules, and returns the statements of its turns and the ids of
// its calls.
func loggedCalls(t *testing.T, h home) (statements []string, ids map[string]int) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(h.Dir, "sessions", "mcp_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	ids = map[string]int{}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, sessiontest.CheckCLILoadRules(data), path)
		s, warnings, err := conversation.Load(path)
		require.NoError(t, err)
		assert.Empty(t, warnings)
		for _, m := range s.History {
			switch {
			case m.Role == conversation.RoleUser:
				statements = append(statements, m.Content)
			case len(m.ToolCalls) > 0:
				ids[m.ToolCalls[0].ID]++
			}
		}
	}
	return statements, ids
}

// TestCallLogManyProcesses: ten MCP servers on one home, as with two host
// apps and several editor windows, call at once; the log keeps every call,
// each with an id of its own.
func TestCallLogManyProcesses(t *testing.T) {
	h := newHome(t)
	src := dbtest.SQLite(t)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	const procs, calls = 10, 20
	var wg sync.WaitGroup
	for p := range procs {
		cs, _ := mcpSession(t, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cs.Close()
			for n := range calls {
				selectN(t, cs, p*1000+n)
			}
		}()
	}
	wg.Wait()
	statements, ids := loggedCalls(t, h)
	assert.Len(t, statements, procs*calls)
	assert.Len(t, ids, procs*calls, "every call has an id of its own")
	want := map[string]bool{}
	for p := range procs {
		for n := range calls {
			want[fmt.Sprintf("SELECT %d AS n", p*1000+n)] = true
		}
	}
	for _, s := range statements {
		assert.True(t, want[s], "a logged statement that was called: %q", s)
		delete(want, s)
	}
	assert.Empty(t, want, "calls missing from the log")
}

// TestCallLogKilled: a call is in the log once it is answered, so a server
// killed with SIGKILL right after loses none; the next server adds to the
// same file.
func TestCallLogKilled(t *testing.T) {
	h := newHome(t)
	src := dbtest.SQLite(t)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	cs, cmd := mcpSession(t, h)
	for n := range 5 {
		selectN(t, cs, n)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cs.Close()
	statements, _ := loggedCalls(t, h)
	assert.Len(t, statements, 5)

	cs, _ = mcpSession(t, h)
	selectN(t, cs, 5)
	require.NoError(t, cs.Close())
	statements, _ = loggedCalls(t, h)
	assert.Len(t, statements, 6)
	logs, _ := filepath.Glob(filepath.Join(h.Dir, "sessions", "mcp_*.json"))
	assert.Len(t, logs, 1, "one file for the day")
}

// TestStaleTempsRemovedAtStart: a save killed halfway leaves its temporary
// file; the next start removes it, however young, since its process is
// gone.
func TestStaleTempsRemovedAtStart(t *testing.T) {
	h := newHome(t)
	src := dbtest.SQLite(t)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	stale := filepath.Join(h.Dir, "sessions", fmt.Sprintf(".session-%d-1.tmp", gone.Process.Pid))
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o700))
	require.NoError(t, os.WriteFile(stale, []byte("{"), 0o600))
	cs, _ := mcpSession(t, h)
	selectN(t, cs, 1)
	require.NoError(t, cs.Close())
	assert.NoFileExists(t, stale)
}
