package conversation_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The warnings each CLI file must give on load; the others load clean.
var cliWarnings = map[string][]string{
	"normalization-input.session.json": {
		`raw_messages[4]: a tool result for call "call_2", which the assistant message before it did not make (or which was already answered); skipped`,
		"raw_messages[9]: want an object, found a string; skipped",
		"raw_messages[10]: want an object, found null; skipped",
	},
	// The CLI saved the orphan result and the null it should have dropped.
	"normalization-output.session.json": {
		`raw_messages[4]: a tool result for call "call_2", which the assistant message before it did not make (or which was already answered); skipped`,
		"raw_messages[8]: want an object, found null; skipped",
	},
}

// TestCLIFilesContinue loads every file the CLI wrote, runs one more turn,
// saves, and checks that the CLI would load the result and that nothing of
// the earlier conversation was lost.
func TestCLIFilesContinue(t *testing.T) {
	files := sessiontest.CLIFiles()
	require.Len(t, files, 6)
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			require.NoError(t, os.WriteFile(path, data, 0o600))
			s, warnings, err := conversation.Load(path)
			require.NoError(t, err)
			assert.Equal(t, cliWarnings[name], warnings)
			before := s.History
			legacyBefore := s.Legacy

			m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("hello after resume")}}
			r := &conversation.Runner{Model: m}
			_, err = r.Run(context.Background(), s, conversation.Turn{System: "fresh prompt", User: "next question"}, nil)
			require.NoError(t, err)

			// What the model saw is valid and holds the earlier turns.
			req := unfenced(t, m.Requests()[0].Messages)
			require.NoError(t, conversation.CheckRequest(req))
			assert.Equal(t, "fresh prompt", req[0].Content)
			assert.Equal(t, before, req[1:len(req)-1])

			out, notes, err := s.Encode()
			require.NoError(t, err)
			assert.Empty(t, notes)
			require.NoError(t, sessiontest.CheckCLILoadRules(out))
			require.NoError(t, sessionio.WriteFile(path, out))

			again, warnings, err := conversation.Load(path)
			require.NoError(t, err)
			assert.Empty(t, warnings, "what we write loads clean")
			assert.Equal(t, append(before, conversation.Message{Role: conversation.RoleUser, Content: "next question"},
				conversation.Message{Role: conversation.RoleAssistant, Content: "hello after resume"}), again.History)
			assert.Equal(t, legacyBefore, again.Legacy[:len(legacyBefore)])
			assert.Equal(t, "fresh prompt", again.SystemPrompt)
			assert.Equal(t, s.Source, again.Source)
		})
	}
}

// TestNormalizationMatchesTheCLI compares our reading of the CLI's
// normalisation example with what the CLI itself saved after one turn,
// element by element, where we agree and where we deliberately differ.
func TestNormalizationMatchesTheCLI(t *testing.T) {
	files := sessiontest.CLIFiles()
	in, _, err := sessionio.Decode(files["normalization-input.session.json"])
	require.NoError(t, err)
	s, _ := conversation.FromFile(in)
	out, _, err := sessionio.Decode(files["normalization-output.session.json"])
	require.NoError(t, err)

	// The CLI's output, without its system prompt and its new turn, and
	// decoded as we decode: the same messages, except that we skip the
	// orphan tool result (a strict API refuses it), the null element the
	// CLI keeps, and the mid-conversation system message.
	var cli []conversation.Message
	for _, raw := range out.RawMessages[1 : len(out.RawMessages)-2] {
		m, _, err := conversation.DecodeMessage(raw)
		if err != nil || m.Role == conversation.RoleSystem || (m.Role == conversation.RoleTool && m.ToolCallID == "call_2") {
			continue
		}
		cli = append(cli, m)
	}
	assert.Equal(t, cli, s.History)
	assert.Equal(t, "OLD SYSTEM PROMPT THAT MUST BE DROPPED", s.SystemPrompt)
	assert.JSONEq(t, `{"client": "vscode"}`, string(s.MetaExtra()["x_aiq_rpc"]), "unknown metadata keys survive")
	assert.Equal(t, `"thinking..."`, string(s.History[1].Extra["reasoning_content"]))
}

func TestNoDatabaseSessionsRoundTrip(t *testing.T) {
	s := conversation.NewSession("", "", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
	_, err := (&conversation.Runner{Model: &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("hi")}}}).
		Run(context.Background(), s, conversation.Turn{System: "p", User: "hello"}, nil)
	require.NoError(t, err)
	data, _, err := s.Encode()
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data), "the placeholder source satisfies the CLI")
	f, _, err := sessionio.Decode(data)
	require.NoError(t, err)
	again, _ := conversation.FromFile(f)
	assert.Equal(t, "", again.Source)
	assert.Equal(t, "", again.DatabaseType)
}

// bigTurn appends a turn whose tool result has size bytes.
func bigTurn(s *conversation.Session, n, size int) {
	q := "question " + strings.Repeat("x", n%7) + string(rune('a'+n%26))
	s.History = append(s.History,
		conversation.Message{Role: conversation.RoleUser, Content: q},
		conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c", Type: "function", Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT *"}`}}}},
		conversation.Message{Role: conversation.RoleTool, ToolCallID: "c", Content: strings.Repeat("é\"", size/3)},
		conversation.Message{Role: conversation.RoleAssistant, Content: "done"})
	s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: q}, sessionio.LegacyMessage{Role: "assistant", Content: "done"})
}

func TestEncodeStaysUnderTheLimit(t *testing.T) {
	t.Run("drops the oldest turns", func(t *testing.T) {
		s := conversation.NewSession("demo", "sqlite", time.Now())
		for i := range 8 {
			bigTurn(s, i, 2<<20) // each ~2.7 MiB once escaped
		}
		lastQuestion := s.History[len(s.History)-4].Content
		data, notes, err := s.Encode()
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), sessionio.MaxFileSize)
		require.NoError(t, sessiontest.CheckCLILoadRules(data))
		assert.NotEmpty(t, notes)
		assert.Less(t, s.Turns(), 8)
		assert.Equal(t, lastQuestion, s.History[0+len(s.History)-4].Content, "the newest turn is kept")
		assert.NoError(t, conversation.CheckHistory(s.History))
		assert.Equal(t, conversation.RoleUser, s.History[0].Role)
		assert.Equal(t, "user", s.Legacy[0].Role)
	})
	t.Run("cuts one oversized result with a marker", func(t *testing.T) {
		s := conversation.NewSession("demo", "sqlite", time.Now())
		bigTurn(s, 0, 15<<20)
		data, notes, err := s.Encode()
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), sessionio.MaxFileSize)
		assert.Greater(t, len(data), sessionio.MaxFileSize-64<<10, "cuts about what it must, not more")
		require.NoError(t, sessiontest.CheckCLILoadRules(data))
		require.Len(t, notes, 1)
		assert.Contains(t, notes[0], "cut a")
		assert.Contains(t, s.History[2].Content, "to keep the session file under 10 MiB]")
		f, _, err := sessionio.Decode(data)
		require.NoError(t, err)
		again, warnings := conversation.FromFile(f)
		assert.Empty(t, warnings)
		assert.Equal(t, s.History, again.History)
	})
	t.Run("a huge question is cut too", func(t *testing.T) {
		s := conversation.NewSession("demo", "sqlite", time.Now())
		s.History = []conversation.Message{{Role: conversation.RoleUser, Content: strings.Repeat("q", 12<<20)}, {Role: conversation.RoleAssistant, Content: "a"}}
		s.Legacy = []sessionio.LegacyMessage{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}}
		data, _, err := s.Encode()
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), sessionio.MaxFileSize)
	})
}

func TestClearEmptiesBothLists(t *testing.T) {
	s := conversation.NewSession("demo", "sqlite", time.Now())
	bigTurn(s, 0, 10)
	later := s.Updated.Add(time.Minute)
	s.Clear(later)
	assert.Empty(t, s.History)
	assert.Empty(t, s.Legacy)
	assert.Equal(t, 0, s.Turns())
	assert.Equal(t, later, s.Updated)
}
