package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
)

// fullSession builds a session of turns turns, each a question, one
// execute_sql call with a result of about resultBytes, and an answer.
func fullSession(b testing.TB, turns, resultBytes int) *conversation.Session {
	b.Helper()
	var rows [][]any
	for size := 0; size < resultBytes; {
		row := []any{len(rows), "customer " + fmt.Sprint(len(rows)), "2026-11-22", 19.99}
		size += len(mustMarshal(b, row)) + 1
		rows = append(rows, row)
	}
	result := string(mustMarshal(b, map[string]any{"status": "success", "row_count": len(rows), "columns": []string{"id", "name", "day", "total"}, "rows": rows}))
	s := conversation.NewSession("shop", "postgresql", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
	s.SystemPrompt = strings.Repeat("You answer questions about the shop database. ", 100)
	for i := range turns {
		q := fmt.Sprintf("question %d: which customers ordered most last week?", i)
		s.History = append(s.History,
			conversation.Message{Role: conversation.RoleUser, Content: q},
			conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{
				modeltest.CallOf("call_1", "execute_sql", `{"sql":"SELECT id, name, day, total FROM orders ORDER BY total DESC LIMIT 50"}`)}},
			conversation.Message{Role: conversation.RoleTool, ToolCallID: "call_1", Content: result},
			conversation.Message{Role: conversation.RoleAssistant, Content: "The top customers were customer 0 and customer 1."})
		s.Legacy = append(s.Legacy,
			sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: s.Created},
			sessionio.LegacyMessage{Role: "assistant", Content: "The top customers were customer 0 and customer 1.", Timestamp: s.Created})
	}
	return s
}

func mustMarshal(b testing.TB, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkSave is the autosave after each turn: a full 20-turn session
// with 4 KB results rendered as a file.
func BenchmarkSave(b *testing.B) {
	s := fullSession(b, 20, 4<<10)
	data, _, err := s.Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is session/load of the same file: decode, normalise, check.
func BenchmarkLoad(b *testing.B) { benchLoad(b, 4<<10) }

// BenchmarkLoadLargest loads a file just under the 10 MiB limit.
func BenchmarkLoadLargest(b *testing.B) { benchLoad(b, 450<<10) }

func benchLoad(b *testing.B, resultBytes int) {
	data, _, err := fullSession(b, 20, resultBytes).Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, _, err := sessionio.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		conversation.FromFile(f)
	}
}

// BenchmarkTurnOverhead is what the loop itself costs around the model and
// the tools: a turn with one tool call on a full history of 20 and of 200
// turns (4 KB results), with an instant model and tool. The history stays
// at its size, as the history limit keeps it.
//
//	go test -run '^$' -bench TurnOverhead -benchmem -count 6 ./conversation/
func BenchmarkTurnOverhead(b *testing.B) {
	for _, turns := range []int{20, 200} {
		b.Run(fmt.Sprintf("history=%d", turns), func(b *testing.B) { benchTurnOverhead(b, turns) })
	}
}

func benchTurnOverhead(b *testing.B, turns int) {
	model := &modeltest.Model{Forget: true, Respond: func(req conversation.Request) modeltest.Step {
		if req.Messages[len(req.Messages)-1].Role == conversation.RoleUser {
			return modeltest.Call("c", "execute_sql", `{"sql":"SELECT 1"}`)
		}
		return modeltest.Answer("done")
	}}
	tools := modeltest.Tools{"execute_sql": func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"status": "success", "row_count": 1}, nil
	}}
	r := &conversation.Runner{Model: model, Tools: tools, HistoryLimit: turns}
	s := fullSession(b, turns, 4<<10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(context.Background(), s, conversation.Turn{System: "p", User: "q"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
