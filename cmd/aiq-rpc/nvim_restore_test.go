package main

import (
	"fmt"
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
// newer than it is passed over without a word; a conversation longer than
// the screen shows scrolled to its end. With the option off, the panel
// holds the new question alone, in a new session.
func TestNvimRestoreInTmux(t *testing.T) {
	nvim := findNvim(t)
	tmuxPath := findTmux(t)
	t.Parallel()
	const (
		q1, a1 = "How many orders are there?", "There are 4 orders."
		q2, a2 = "And how many are pending?", "One is pending."
	)
	// long is an answer of 60 lines, more than the screen's 40.
	var long strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&long, "Line %d of the first answer.\n\n", i)
	}
	long.WriteString("That is all.")
	for _, c := range []struct {
		name, script string
		restore      bool
		answer       string // the first answer, a1 unless long
	}{
		{"On", "tmux", true, ""},
		{"Off", "tmux_norestore", false, ""},
		{"LongScrolledToTheEnd", "tmux", true, long.String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			first := a1
			if c.answer != "" {
				first = c.answer
			}
			n := newNvimTest(t, nvim, llmtest.Step{Text: first}, llmtest.Step{Text: a2})
			tn := startTmuxNvim(t, n, tmuxPath, "tmux")
			screen := askInTmux(tn, q1, lastLine(first))
			// An empty home has nothing to reopen, and says nothing.
			assert.NotContains(t, screen, "last conversation", "a notice about the last conversation:\n%s", screen)
			tn.quit()
			saved, err := filepath.Glob(filepath.Join(n.home.sessionsDir(), "*.json"))
			require.NoError(t, err)
			require.Len(t, saved, 1, "the first conversation's file")
			n.home.writeFile(t, "sessions/broken.json", "{")

			second := startTmuxNvim(t, n, tmuxPath, c.script)
			screen = askInTmux(second, q2, a2)
			assert.NotContains(t, screen, "last conversation", "a notice about the last conversation:\n%s", screen)
			assert.NotContains(t, screen, "broken.json", "a notice about the unreadable file:\n%s", screen)
			switch {
			case c.answer != "":
				// The end of the first answer, then the second question
				// and its answer; the first question is scrolled away.
				requireInOrder(t, screen, "Line 60 of", "That is all.", q2, a2)
				assert.Equal(t, []string{q1, q2}, n.userMessages(1), "the second question goes on with the first conversation")
			case c.restore:
				requireInOrder(t, screen, q1, a1, q2, a2)
				assert.Equal(t, []string{q1, q2}, n.userMessages(1), "the second question goes on with the first conversation")
			default:
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

// lastLine is text's last line.
func lastLine(text string) string {
	return text[strings.LastIndex(text, "\n")+1:]
}

// requireInOrder fails unless screen shows each of texts, in their order.
func requireInOrder(t *testing.T, screen string, texts ...string) {
	t.Helper()
	at := -1
	for _, want := range texts {
		i := strings.Index(screen, want)
		require.Greater(t, i, at, "%q is not shown after %v:\n%s", want, texts, screen)
		at = i
	}
}
