package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestNvimRestoreInTmux asks a question in real Neovim in tmux, quits,
// and starts a fresh Neovim on the same home. With restore_last_session
// (the default), its first question shows under the earlier question and
// answer and continues that conversation, and an unreadable session file
// newer than it is passed over without a word; with the option off, the
// panel holds the new question alone, in a new session.
func TestNvimRestoreInTmux(t *testing.T) {
	nvim := findNvim(t)
	tmuxPath := findTmux(t)
	t.Parallel()
	const (
		q1, a1 = "How many orders are there?", "There are 4 orders."
		q2, a2 = "And how many are pending?", "One is pending."
	)
	for _, c := range []struct {
		name, script string
		restore      bool
	}{
		{"On", "tmux", true},
		{"Off", "tmux_norestore", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := newNvimTest(t, nvim, llmtest.Step{Text: a1}, llmtest.Step{Text: a2})
			first := startTmuxNvim(t, n, tmuxPath, "tmux")
			screen := askInTmux(first, q1, a1)
			// An empty home has nothing to reopen, and says nothing.
			assert.NotContains(t, screen, "last conversation", "a notice about the last conversation:\n%s", screen)
			first.quit()
			saved, err := filepath.Glob(filepath.Join(n.home.sessionsDir(), "*.json"))
			require.NoError(t, err)
			require.Len(t, saved, 1, "the first conversation's file")
			n.home.writeFile(t, "sessions/broken.json", "{")

			second := startTmuxNvim(t, n, tmuxPath, c.script)
			screen = askInTmux(second, q2, a2)
			assert.NotContains(t, screen, "last conversation", "a notice about the last conversation:\n%s", screen)
			assert.NotContains(t, screen, "broken.json", "a notice about the unreadable file:\n%s", screen)
			if c.restore {
				order := []string{q1, a1, q2, a2}
				at := -1
				for _, want := range order {
					i := strings.Index(screen, want)
					require.Greater(t, i, at, "%q is not shown after %v:\n%s", want, order, screen)
					at = i
				}
				assert.Equal(t, []string{q1, q2}, n.userMessages(1), "the second question goes on with the first conversation")
			} else {
				assert.NotContains(t, screen, q1, "the earlier question is shown")
				assert.NotContains(t, screen, a1, "the earlier answer is shown")
				assert.Equal(t, []string{q2}, n.userMessages(1), "the second question starts a new conversation")
			}
			second.quit()
		})
	}
}

// askInTmux asks question with :AiqAsk and waits for answer, the whole of
// it, and returns the screen.
func askInTmux(tn *tmuxNvim, question, answer string) string {
	tn.t.Helper()
	tn.waitScreen("Neovim's status line", func(s string) bool { return strings.Contains(s, "[No Name]") })
	tn.keys(":")
	tn.typeText("AiqAsk " + question)
	tn.keys("Enter")
	return tn.waitScreen("the answer "+answer, func(s string) bool {
		return strings.Contains(s, answer) && !strings.Contains(s, "running…")
	})
}
