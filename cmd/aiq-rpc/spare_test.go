package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSavesLeaveOnlyTheirFiles: a session saved turn after turn is written
// over the version before the last (sessionio.Rewriter), which waits under
// a hidden name while the session is open. An editor that quits leaves the
// session file and its seen file, holding the last turn, and nothing else;
// a process killed leaves its hidden files to the next start.
func TestSavesLeaveOnlyTheirFiles(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHome(t).withModel(t, srv.URL)
	src := dbtest.SQLite(t)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	dbtest.Exec(t, src, "CREATE TABLE items (id integer PRIMARY KEY, name text)", "INSERT INTO items VALUES (1, 'one'), (2, 'two')")

	turns := func(p *proc, id string, n int) conversation.Answer {
		var ans conversation.Answer
		for i := range n {
			srv.Add(llmtest.Step{ToolCalls: []llmtest.Call{{ID: fmt.Sprintf("c%d", i), Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": "SELECT * FROM items"})}}},
				llmtest.Step{Text: fmt.Sprintf("Answer %d.", i)})
			p.client.Result("chat/turn", map[string]any{"sessionId": id, "query": fmt.Sprintf("question %d", i)}, &ans)
		}
		return ans
	}
	p := startProc(t, h, procOptions{plain: true})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", map[string]string{"source": "db"}, &info)
	ans := turns(p, info.SessionID, 4)
	require.NotEmpty(t, ans.SavedTo)
	p.stdin.Close()
	require.Equal(t, 0, p.wait(), p.stderr.String())
	assert.ElementsMatch(t, []string{filepath.Base(ans.SavedTo), filepath.Base(sessionio.SeenPath(ans.SavedTo))}, names(t, h.sessionsDir()))
	seen, err := sessionio.ReadSeen(ans.SavedTo)
	require.NoError(t, err)
	require.Len(t, seen, 4, "the seen file holds every turn's result, the last one's too")
	data, err := os.ReadFile(ans.SavedTo)
	require.NoError(t, err)
	assert.Contains(t, string(data), "Answer 3.")

	// Killed with its hidden files in place; the next start removes them.
	p = startProc(t, h, procOptions{plain: true, args: []string{"-s", ans.SavedTo}})
	p.initialize(nil)
	turns(p, "", 3)
	var hidden []string
	for _, n := range names(t, h.sessionsDir()) {
		if strings.HasPrefix(n, ".") {
			hidden = append(hidden, n)
		}
	}
	require.NotEmpty(t, hidden, "a session open after three saves keeps a version to write over")
	p.kill()
	p = startProc(t, h, procOptions{plain: true})
	p.initialize(nil)
	for _, n := range hidden {
		assert.NoFileExists(t, filepath.Join(h.sessionsDir(), n), "left by the killed process")
	}
	p.stdin.Close()
	p.wait()
}

// names lists the names in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
