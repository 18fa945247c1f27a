package conversation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raws turns JSON texts into raw_messages elements.
func raws(elems ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(elems))
	for i, e := range elems {
		out[i] = json.RawMessage(e)
	}
	return out
}

const (
	sys       = `{"role":"system","content":"old prompt"}`
	user1     = `{"role":"user","content":"q1"}`
	user2     = `{"role":"user","content":"q2"}`
	answer    = `{"role":"assistant","content":"a"}`
	callA     = `{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	callAB    = `{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}`
	callABTxt = `{"role":"assistant","content":"let me look","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]}`
	resultA   = `{"role":"tool","tool_call_id":"a","content":"{}"}`
	resultB   = `{"role":"tool","tool_call_id":"b","content":"{}"}`
)

// shape is a compact picture of a history: role letters, with the ids of
// tool calls and results, to compare in tables.
func shape(msgs []Message) string {
	var parts []string
	for _, m := range msgs {
		p := string(m.Role[0])
		for _, c := range m.ToolCalls {
			p += "+" + c.ID
		}
		if m.Role == RoleTool {
			p += ":" + m.ToolCallID
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestDecodeHistorySkipsWhatCannotBeUsed(t *testing.T) {
	tests := []struct {
		name         string
		elems        []string
		want         string
		wantWarnings []string
	}{
		{"clean multi-call turn", []string{sys, user1, callAB, resultA, resultB, answer}, "u a+a+b t:a t:b a", nil},
		{"system messages dropped anywhere", []string{sys, user1, sys, answer}, "u a", nil},
		{"non-objects and null skipped", []string{user1, `"not-an-object"`, `null`, `42`, answer}, "u a", []string{
			"raw_messages[1]: want an object, found a string; skipped",
			"raw_messages[2]: want an object, found null; skipped",
			"raw_messages[3]: want an object, found a number; skipped",
		}},
		{"missing and unknown roles skipped", []string{user1, `{"content":"x"}`, `{"role":"robot","content":"x"}`, answer}, "u a", []string{
			"raw_messages[1]: role: missing; skipped",
			`raw_messages[2]: role: unknown role "robot"; skipped`,
		}},
		{"orphan tool result skipped", []string{user1, `{"role":"tool","tool_call_id":"zz","content":"{}"}`, answer}, "u a", []string{
			`raw_messages[1]: a tool result for call "zz", which the assistant message before it did not make (or which was already answered); skipped`,
		}},
		{"tool result after a user message skipped", []string{user1, callA, resultA, user2, resultA, answer}, "u a+a t:a u a", []string{
			`raw_messages[4]: a tool result for call "a", which the assistant message before it did not make (or which was already answered); skipped`,
		}},
		{"second result for one call skipped", []string{user1, callA, resultA, resultA, answer}, "u a+a t:a a", []string{
			`raw_messages[3]: a tool result for call "a", which the assistant message before it did not make (or which was already answered); skipped`,
		}},
		{"dangling call dropped, answered one kept", []string{user1, callAB, resultA, answer}, "u a+a t:a a", []string{
			`raw_messages[1]: tool call "b" (g) has no result; dropped`,
		}},
		{"unfinished exchange dropped whole", []string{user1, callAB, user2, answer}, "u u a", []string{
			`raw_messages[1]: tool call "a" (f) has no result; dropped`,
			`raw_messages[1]: tool call "b" (g) has no result; dropped`,
			"raw_messages[1]: nothing left of the unfinished assistant message; dropped",
		}},
		{"unanswered calls at the end dropped, text kept", []string{user1, callABTxt}, "u a", []string{
			`raw_messages[1]: tool call "a" (f) has no result; dropped`,
			`raw_messages[1]: tool call "b" (g) has no result; dropped`,
		}},
		{"results in another order than the calls", []string{user1, callAB, resultB, resultA, answer}, "u a+a+b t:b t:a a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			history, _, _, warnings := decodeHistory(&sessionio.File{RawMessages: raws(tt.elems...)})
			assert.Equal(t, tt.want, shape(history))
			assert.Equal(t, tt.wantWarnings, warnings)
			// Whatever went in, what comes out is a valid request history.
			assert.NoError(t, checkHistory(history))
		})
	}
}

func TestDecodeHistoryKeepsFirstSystemPrompt(t *testing.T) {
	_, _, system, _ := decodeHistory(&sessionio.File{RawMessages: raws(sys, user1, `{"role":"system","content":"later"}`, answer)})
	assert.Equal(t, "old prompt", system)
}

func TestTrimKeepsWholeTurns(t *testing.T) {
	// Turn 1 has two model calls (four tool results), turn 2 one call,
	// turn 3 no tools: trimming must cut only before user messages.
	history, _, _, warnings := decodeHistory(&sessionio.File{RawMessages: raws(
		user1, callAB, resultA, resultB, callAB, resultB, resultA, answer,
		user2, callA, resultA, answer,
		`{"role":"user","content":"q3"}`, answer,
	)})
	require.Empty(t, warnings)
	tests := []struct {
		limit int
		want  string
	}{
		{5, "u a+a+b t:a t:b a+a+b t:b t:a a u a+a t:a a u a"},
		{3, "u a+a+b t:a t:b a+a+b t:b t:a a u a+a t:a a u a"},
		{2, "u a+a t:a a u a"},
		{1, "u a"},
		{0, ""},
	}
	for _, tt := range tests {
		got := trimTurns(history, isUserMessage, tt.limit)
		assert.Equal(t, tt.want, shape(got), "limit %d", tt.limit)
		assert.NoError(t, checkHistory(got))
	}
}

func TestTrimBothLists(t *testing.T) {
	s := &Session{}
	for i := range 25 {
		q := strings.Repeat("q", i+1)
		s.History = append(s.History, Message{Role: RoleUser, Content: q},
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f"}}}},
			Message{Role: RoleTool, ToolCallID: "c", Content: "{}"},
			Message{Role: RoleAssistant, Content: "a"})
		s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: q}, sessionio.LegacyMessage{Role: "assistant", Content: "a"})
	}
	s.Trim(DefaultHistoryLimit)
	assert.Equal(t, 20, s.Turns())
	require.Len(t, s.History, 80)
	require.Len(t, s.Legacy, 40)
	// The oldest five turns went, from both lists alike.
	assert.Equal(t, strings.Repeat("q", 6), s.History[0].Content)
	assert.Equal(t, strings.Repeat("q", 6), s.Legacy[0].Content)
	assert.NoError(t, checkHistory(s.History))
}

func TestLegacyFallback(t *testing.T) {
	ts := time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
	f := &sessionio.File{
		Metadata: sessionio.Metadata{CreatedAt: ts, DataSource: "db", DatabaseType: "mysql"},
		Messages: []sessionio.LegacyMessage{
			{Role: "user", Content: "count users", Timestamp: ts},
			{Role: "assistant", Content: "There are 3 users.", Timestamp: ts},
		},
	}
	tests := []struct {
		name string
		raw  []json.RawMessage
	}{
		{"no raw messages", nil},
		{"only a system prompt", raws(sys)},
		{"nothing usable", raws(`null`, `"x"`, resultA)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.RawMessages = tt.raw
			s, _ := FromFile(f)
			assert.Equal(t, []Message{
				{Role: RoleUser, Content: "count users"},
				{Role: RoleAssistant, Content: "There are 3 users."},
			}, s.History)
		})
	}
	// Complete messages win over the legacy list when there are any.
	f.RawMessages = raws(sys, user1, answer)
	s, _ := FromFile(f)
	assert.Equal(t, "u a", shape(s.History))
	assert.Equal(t, "q1", s.History[0].Content)
}
