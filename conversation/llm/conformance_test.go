package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
)

// streamCase is what one stream of testdata/streams must give.
type streamCase struct {
	file     string
	text     string // what onText heard, all of it
	thought  string // what OnThought heard
	field    string // the reasoning's field
	finish   string
	calls    []conversation.ToolCall
	notePart string // a part of the only note; "" for none
}

// The streams are written from the providers' documented formats, one
// behaviour each; the comment at the top of each file says whose.
var streamCases = []streamCase{
	{file: "reasoning_content", text: "There are three rows.", thought: "The user asks how many; count them.", field: "reasoning_content", finish: "stop"},
	{file: "reasoning", text: "There are three rows.", thought: "Counting the rows.", field: "reasoning", finish: "stop"},
	{file: "think_split", text: "There are three rows.", thought: "Counting the rows.", finish: "stop"},
	{file: "think_unclosed", thought: "I keep pondering </thi", finish: "stop"},
	{file: "reasoning_tool_call", thought: "I should run a query.", field: "reasoning_content", finish: "tool_calls",
		calls: []conversation.ToolCall{call("call_00_q1", "execute_sql", `{"sql":"SELECT 1 AS n"}`)}},
	{file: "length", text: "The first part of a long answer that", finish: "length"},
	{file: "content_filter", text: "I can tell you that", finish: "content_filter"},
	{file: "reasoning_only", thought: "Maybe the table is empty.", field: "reasoning_content", finish: "stop"},
	{file: "tool_call_text", text: "Let me check.\n", finish: "stop",
		calls: []conversation.ToolCall{call("", "execute_sql", `{"sql":"SELECT 1 AS n"}`)}},
	{file: "tool_call_in_reasoning", thought: "I will query.\n", field: "reasoning_content", finish: "stop",
		calls: []conversation.ToolCall{call("", "execute_sql", `{"sql":"SELECT 1 AS n"}`)}},
	{file: "tool_call_malformed", text: "Trying.\n<tool_call>{\"name\": execute_sql, sql=DROP TABLE t}</tool_call>", finish: "stop",
		notePart: "could not be read (the block is not a JSON object), so it was not run"},
	{file: "citations", text: "Paris is the capital [1][2].\n\nSources:\n[1] https://example.com/a\n[2] https://example.com/b", finish: "stop"},
}

func readStream(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "streams", name+".sse"))
	require.NoError(t, err)
	return data
}

// TestStreamConformance reads each stream through the real client, and
// again through the event reader a byte at a time, where every tag is
// split in every way.
func TestStreamConformance(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.file, func(t *testing.T) {
			body := readStream(t, tc.file)
			srv := llmtest.NewServer(t, llmtest.Step{Body: string(body), ContentType: "text/event-stream"})
			var thought strings.Builder
			req := question("q")
			req.OnThought = func(s string) { thought.WriteString(s) }
			reply, deltas, err := complete(t, newTestModel(t, srv.URL), req)
			require.NoError(t, err)
			assert.Equal(t, tc.text, strings.Join(deltas, ""), "the text shown")
			assert.Equal(t, tc.text, reply.Content)
			assert.Equal(t, tc.thought, thought.String(), "the thought shown")
			assert.Equal(t, tc.thought, reply.Reasoning)
			assert.Equal(t, tc.field, reply.ReasoningField)
			assert.Equal(t, tc.finish, reply.FinishReason)
			assert.Equal(t, tc.calls, reply.ToolCalls)
			if tc.notePart == "" {
				assert.Empty(t, reply.Notes)
			} else if assert.Len(t, reply.Notes, 1) {
				assert.Contains(t, reply.Notes[0], tc.notePart)
			}
			for _, tag := range []string{"<think>", "</think>", "</tool_call>"} {
				if !strings.Contains(tc.text, tag) {
					assert.NotContains(t, strings.Join(deltas, ""), tag)
				}
			}

			slow, shown, err := replyOf(iotest.OneByteReader(bytes.NewReader(body)))
			require.NoError(t, err)
			assert.Equal(t, tc.text, shown, "a byte at a time")
			assert.Equal(t, tc.calls, slow.ToolCalls, "a byte at a time")
		})
	}
}

// TestSplitterEveryCut feeds a content with a <think> and a <tool_call>
// block cut at every pair of places: the pieces always add up to the same.
func TestSplitterEveryCut(t *testing.T) {
	const in = "  <think>a</think>\n\nb<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>c<tool_c"
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			var s splitter
			s.think = true
			var got [3]strings.Builder
			out := func(p piece) { got[p.kind].WriteString(p.text) }
			for _, part := range []string{in[:i], in[i:j], in[j:]} {
				s.feed(part, out)
			}
			s.end(out)
			require.Equal(t, "bc<tool_c", got[pieceText].String(), "cut at %d, %d", i, j)
			require.Equal(t, "a", got[pieceThought].String(), "cut at %d, %d", i, j)
			require.Equal(t, `{"name":"f","arguments":{}}`, got[pieceBlock].String(), "cut at %d, %d", i, j)
		}
	}
}

// TestReasoningSentBack runs a turn with DeepSeek's thinking mode as a
// scripted server plays it: the request after a tool call is refused with
// 400 unless the assistant message carries its reasoning_content, and so
// is a later turn's request whose history lacks it.
func TestReasoningSentBack(t *testing.T) {
	answer := llmtest.Step{Body: string(readStream(t, "reasoning_content")), ContentType: "text/event-stream"}
	srv := llmtest.NewServer(t,
		llmtest.Step{Body: string(readStream(t, "reasoning_tool_call")), ContentType: "text/event-stream"},
		llmtest.RequireReasoning("reasoning_content", answer),
		llmtest.RequireReasoning("reasoning_content", answer))
	tools := modeltest.Tools{"execute_sql": func(ctx context.Context, args json.RawMessage) (any, error) {
		return map[string]any{"status": "success", "rows": [][]any{{1}}}, nil
	}}
	r := &conversation.Runner{Model: newTestModel(t, srv.URL).Model, Tools: tools}
	s := conversation.NewSession("shop", "sqlite", time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC))
	res, err := r.Run(t.Context(), s, conversation.Turn{System: "sys", User: "How many?"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "There are three rows.", res.Answer)
	assert.Equal(t, "I should run a query.The user asks how many; count them.", res.Thoughts)
	assert.Equal(t, conversation.StopEndTurn, res.StopReason)

	// The session keeps the reasoning where the file keeps it, and a
	// later turn sends it again.
	field, text := conversation.Reasoning(s.History[1])
	assert.Equal(t, "reasoning_content", field)
	assert.Equal(t, "I should run a query.", text)
	_, err = r.Run(t.Context(), s, conversation.Turn{System: "sys", User: "And now?"}, nil)
	require.NoError(t, err)

	// Without it, the server refuses, as DeepSeek does.
	bare := llmtest.NewServer(t, llmtest.RequireReasoning("reasoning_content", answer))
	req := question("q")
	req.Messages = append(req.Messages[:1], conversation.Message{Role: conversation.RoleUser, Content: "q"},
		conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", "{}")}},
		conversation.Message{Role: conversation.RoleTool, ToolCallID: "c1", Content: "{}"})
	_, _, err = complete(t, newTestModel(t, bare.URL), req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reasoning_content")
}

// TestTurnStopReasons: a cut-off answer and a filtered one end the turn
// with their stop reason, and a reply that is only reasoning ends with a
// sentence that says so.
func TestTurnStopReasons(t *testing.T) {
	for file, want := range map[string]string{"length": conversation.StopMaxTokens, "content_filter": conversation.StopRefusal,
		"reasoning_only": conversation.StopEndTurn, "citations": conversation.StopEndTurn} {
		t.Run(file, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Step{Body: string(readStream(t, file)), ContentType: "text/event-stream"})
			r := &conversation.Runner{Model: newTestModel(t, srv.URL).Model}
			s := conversation.NewSession("shop", "sqlite", time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC))
			res, err := r.Run(t.Context(), s, conversation.Turn{System: "sys", User: "q"}, nil)
			require.NoError(t, err)
			assert.Equal(t, want, res.StopReason)
			if file == "reasoning_only" {
				assert.Equal(t, conversation.OnlyReasoning, res.Answer)
				assert.Equal(t, "", s.History[len(s.History)-1].Content, "the history keeps what the model said")
			}
		})
	}
}

// TestEmptyThink: the empty <think> block that Qwen3's template writes
// when thinking is off is no thought at all.
func TestEmptyThink(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Body: llmtest.SSE(
		`{"choices":[{"index":0,"delta":{"content":"<think>\n\n</think>\n\n"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop"}]}`), ContentType: "text/event-stream"})
	var thought strings.Builder
	req := question("q")
	req.OnThought = func(s string) { thought.WriteString(s) }
	reply, deltas, err := complete(t, newTestModel(t, srv.URL), req)
	require.NoError(t, err)
	assert.Equal(t, "Hi.", strings.Join(deltas, ""))
	assert.Empty(t, thought.String())
	assert.Empty(t, reply.Reasoning)
}
