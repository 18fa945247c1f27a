package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// TestKillDuringAutosave kills aiq-rpc with SIGKILL at random moments of
// its turns, each of which autosaves the session file, and restarts it on
// the same file with -s. After every kill the file must load, pass the
// CLI's load rules, and be either the version before the killed turn or
// the one after it: the turns only grow, by at most one per killed turn,
// and what was there stays as it was.
func TestKillDuringAutosave(t *testing.T) {
	kills := 200
	if testing.Short() {
		kills = 20
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))

	srv := llmtest.NewServer(t)
	h := newHome(t).withModel(t, srv.URL)
	// No trimming: the count of turns must only grow.
	args := []string{"--history-limit", "100000"}
	step := func(n int) llmtest.Step { return llmtest.Step{Text: fmt.Sprintf("Answer %d.", n)} }

	// The first turn creates the file; its response says where.
	// The binary without the race detector: its timing is the product's.
	p := startProc(t, h, procOptions{plain: true, args: args})
	p.initialize(nil)
	srv.Add(step(0))
	var first conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "question 0"}, &first)
	path := first.SavedTo
	require.Equal(t, h.sessionsDir(), filepath.Dir(path))
	p.kill()
	known := checkSessionFile(t, path, nil)
	require.Len(t, known, 2)

	start := time.Now()
	var savedByKilled, lostByKilled, completed int
	question := 1
	for kill := range kills {
		p := startProc(t, h, procOptions{plain: true, args: append([]string{"-s", path}, args...)})
		p.initialize(nil)
		// Some turns that finish: each is a version the next kill must keep.
		finished := rng.IntN(3)
		for range finished {
			srv.Add(step(question))
			var ans conversation.Answer
			p.client.Result("chat/turn", map[string]any{"query": fmt.Sprintf("question %d", question)}, &ans)
			require.Equal(t, path, ans.SavedTo, "the -s session saves back to its file")
			question++
			completed++
		}
		if finished > 0 {
			before := len(known)
			known = checkSessionFile(t, path, known)
			require.Len(t, known, before+2*finished, "every finished turn is saved")
		}
		// Then one that is killed at a random moment.
		srv.Add(step(question))
		p.client.Start("chat/turn", map[string]any{"query": fmt.Sprintf("question %d", question)})
		question++
		time.Sleep(time.Duration(rng.Int64N(int64(20 * time.Millisecond))))
		p.kill()
		require.Equal(t, -1, p.exitCode, "kill %d: the process ended by SIGKILL, not on its own", kill)
		before := len(known)
		known = checkSessionFile(t, path, known)
		switch len(known) - before {
		case 0:
			lostByKilled++
		case 2:
			savedByKilled++
		default:
			t.Fatalf("kill %d: the file went from %d to %d messages: at most one turn may be added", kill, before, len(known))
		}
	}
	t.Logf("%d kills in %v: %d killed turns saved, %d lost; %d turns completed", kills, time.Since(start).Round(time.Millisecond),
		savedByKilled, lostByKilled, completed)

	// Only the session file is in the folder: no temporary file shows up
	// in a listing.
	list, err := conversation.ListSessions(h.sessionsDir())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, path, list[0].Path)
	assert.Empty(t, list[0].Error)
	entries, err := os.ReadDir(h.sessionsDir())
	require.NoError(t, err)
	var litter []string
	for _, e := range entries {
		if e.Name() != filepath.Base(path) {
			litter = append(litter, e.Name())
		}
	}
	if len(litter) > 0 {
		t.Logf("temporary files left by the kills in %s: %d (%s ...)", h.sessionsDir(), len(litter), litter[0])
	}
}

// checkSessionFile checks the session file after a turn or a kill, and
// returns its legacy messages. The file must load, pass the CLI's rules,
// have mode 0600, and begin with the messages known before.
func checkSessionFile(t *testing.T, path string, known []sessionio.LegacyMessage) []sessionio.LegacyMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the session file is always there")
	require.NoError(t, sessiontest.CheckCLILoadRules(data), "the CLI loads the file: %.200s", data)
	s, warnings, err := conversation.Load(path)
	require.NoError(t, err)
	require.Empty(t, warnings)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.GreaterOrEqual(t, len(s.Legacy), len(known), "the file never loses a turn")
	require.True(t, slices.EqualFunc(known, s.Legacy[:len(known)], sameMessage),
		"the turns already saved stay as they were")
	require.Equal(t, len(s.Legacy)/2, s.Turns())
	if n := len(s.Legacy); n > 0 {
		last := s.Legacy[n-1]
		require.Equal(t, "assistant", last.Role, "a turn is saved whole: %s", mustJSON(s.Legacy[n-2:]))
	}
	return s.Legacy
}

func sameMessage(a, b sessionio.LegacyMessage) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Timestamp.Equal(b.Timestamp)
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
