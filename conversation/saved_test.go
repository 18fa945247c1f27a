package conversation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
)

// addTurn appends a turn as Runner.commit does.
func addTurn(s *Session, i int, answer string) {
	at := time.Date(2026, 11, 22, 9, i, 0, 0, time.UTC)
	q := fmt.Sprintf("question %d", i)
	s.History = append(s.History,
		Message{Role: RoleUser, Content: q},
		Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Type: "function", Function: FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}}},
		Message{Role: RoleTool, ToolCallID: "call_1", Content: `{"status":"success","rows":[[1]]}`},
		Message{Role: RoleAssistant, Content: answer})
	s.Legacy = append(s.Legacy,
		sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: at},
		sessionio.LegacyMessage{Role: "assistant", Content: answer, Timestamp: at.Add(time.Second)})
	s.Updated = at
}

// A save writes the bytes the last save wrote for every message still
// there, and what it writes is always what encoding the session afresh
// writes: after turns, trimming, a new system prompt, a changed message,
// dropping turns to fit and clearing.
func TestSaveReusesSavedBytes(t *testing.T) {
	s := NewSession("shop", "postgresql", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s.SystemPrompt = "prompt 1"
	check := func(step string) {
		t.Helper()
		got, _, err := s.Encode()
		require.NoError(t, err, step)
		want, err := sessionio.Encode(s.File())
		require.NoError(t, err, step)
		require.Equal(t, string(want), string(got), step)
	}
	for i := range 3 {
		addTurn(s, i, fmt.Sprintf("answer %d", i))
	}
	check("first save")
	addTurn(s, 3, "answer 3")
	s.Trim(3)
	// Every message kept from the last save is copied; only the new turn
	// is encoded.
	f := s.file()
	s.reuseSaved(f)
	require.Len(t, f.Encoded, 13)
	for i, data := range f.Encoded {
		assert.Equal(t, i >= 9, data == nil, "raw_messages[%d]", i)
	}
	require.Len(t, f.EncodedLegacy, 6)
	for i, data := range f.EncodedLegacy {
		assert.Equal(t, i >= 4, data == nil, "messages[%d]", i)
	}
	check("a turn, the first trimmed")
	s.SystemPrompt = "prompt 2"
	s.History[3].Content = "changed in place of a copy"
	check("a new prompt and a changed message")
	addTurn(s, 4, strings.Repeat("x", 4<<20))
	addTurn(s, 5, strings.Repeat("y", 4<<20))
	addTurn(s, 6, strings.Repeat("z", 4<<20))
	_, notes, err := s.Encode()
	require.NoError(t, err)
	assert.NotEmpty(t, notes)
	check("turns dropped to fit")
	s.Clear(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	check("cleared")
}
