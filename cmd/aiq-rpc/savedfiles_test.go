package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSavesLeaveOnlyTheirFiles: a session saved turn after turn, its seen
// file written once each answer is out: an editor that quits leaves the
// session file and its seen file, both holding the last turn, and nothing
// else.
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
