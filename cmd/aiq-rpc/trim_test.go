package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
)

// TestAskSaysTrimmed: continuing a session of 50 turns keeps the last 20
// (the history limit), and ask says so; one under the limit says nothing.
func TestAskSaysTrimmed(t *testing.T) {
	h, _ := askHome(t, llmtest.Step{Text: "Continued."}, llmtest.Step{Text: "Again."})
	long := writeTurns(t, 50)
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", long, "and", "then?")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Continued.")
	assert.Contains(t, errOut, "kept the last 20 of 51 turns")
	s, _, err := conversation.Load(long)
	require.NoError(t, err)
	assert.Equal(t, 20, s.Turns())

	short := writeTurns(t, 3)
	code, _, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", short, "and", "then?")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "kept the last")
}

// writeTurns writes a no-database session of n question-and-answer turns.
func writeTurns(t *testing.T, n int) string {
	t.Helper()
	start := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	s := conversation.NewSession("", "", start)
	for i := range n {
		q, a := fmt.Sprintf("question %d", i+1), fmt.Sprintf("answer %d", i+1)
		s.History = append(s.History, conversation.Message{Role: conversation.RoleUser, Content: q}, conversation.Message{Role: conversation.RoleAssistant, Content: a})
		s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: start}, sessionio.LegacyMessage{Role: "assistant", Content: a, Timestamp: start})
	}
	data, _, err := s.Encode()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("turns-%d.json", n))
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
