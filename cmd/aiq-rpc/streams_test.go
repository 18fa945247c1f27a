package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// streamsDir holds the conformance streams of conversation/llm.
var streamsDir = filepath.Join("..", "..", "conversation", "llm", "testdata", "streams")

func streamStep(t testing.TB, name string) llmtest.Step {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(streamsDir, name+".sse"))
	require.NoError(t, err)
	return llmtest.Step{Body: string(data), ContentType: "text/event-stream"}
}

// binaryCase is one conformance stream as a user sees it through a front
// end: the answer's text as it streamed, the thought, the stop reason, a
// statement run or not, a warning or a status line.
type binaryCase struct {
	name       string
	steps      func(t testing.TB) []llmtest.Step
	text       string // all the answer text streamed
	thought    string
	stop       string
	statements int
	warning    string // a warning of the answer
	status     string // a status line of the turn
}

func binaryCases() []binaryCase {
	one := func(file string) func(t testing.TB) []llmtest.Step {
		return func(t testing.TB) []llmtest.Step { return []llmtest.Step{streamStep(t, file)} }
	}
	then := func(file string, next llmtest.Step) func(t testing.TB) []llmtest.Step {
		return func(t testing.TB) []llmtest.Step { return []llmtest.Step{streamStep(t, file), next} }
	}
	return []binaryCase{
		{name: "reasoning_content", steps: one("reasoning_content"), text: "There are three rows.",
			thought: "The user asks how many; count them.", stop: "end_turn"},
		{name: "reasoning", steps: one("reasoning"), text: "There are three rows.", thought: "Counting the rows.", stop: "end_turn"},
		{name: "think_split", steps: one("think_split"), text: "There are three rows.", thought: "Counting the rows.", stop: "end_turn"},
		{name: "think_unclosed", steps: one("think_unclosed"), text: conversation.OnlyReasoning,
			thought: "I keep pondering </thi", stop: "end_turn"},
		{name: "reasoning_tool_call", steps: func(t testing.TB) []llmtest.Step {
			return []llmtest.Step{streamStep(t, "reasoning_tool_call"),
				llmtest.RequireReasoning("reasoning_content", streamStep(t, "reasoning_content"))}
		}, text: "There are three rows.", thought: "I should run a query.The user asks how many; count them.", stop: "end_turn", statements: 1},
		{name: "length", steps: one("length"), text: "The first part of a long answer that", stop: "max_tokens",
			warning: conversation.CutShortWarning},
		{name: "content_filter", steps: one("content_filter"), text: "I can tell you that", stop: "refusal",
			warning: conversation.RefusalWarning},
		{name: "reasoning_only", steps: one("reasoning_only"), text: conversation.OnlyReasoning,
			thought: "Maybe the table is empty.", stop: "end_turn"},
		{name: "tool_call_text", steps: then("tool_call_text", llmtest.Step{Text: "One row."}),
			text: "Let me check.\nOne row.", stop: "end_turn", statements: 1},
		{name: "tool_call_in_reasoning", steps: then("tool_call_in_reasoning", llmtest.Step{Text: "One row."}),
			text: "One row.", thought: "I will query.\n", stop: "end_turn", statements: 1},
		{name: "tool_call_malformed", steps: one("tool_call_malformed"),
			text: "Trying.\n<tool_call>{\"name\": execute_sql, sql=DROP TABLE t}</tool_call>", stop: "end_turn",
			status: "The model wrote a tool call as text that could not be read"},
		{name: "citations", steps: one("citations"),
			text: "Paris is the capital [1][2].\n\nSources:\n[1] https://example.com/a\n[2] https://example.com/b", stop: "end_turn"},
		{name: "unknown_tool", steps: func(t testing.TB) []llmtest.Step {
			return []llmtest.Step{{ToolCalls: []llmtest.Call{{ID: "c1", Name: "drop_everything", Arguments: "{}"}}}, {Text: "Sorry."}}
		}, text: "Sorry.", stop: "end_turn", status: conversation.UnknownToolMessage("drop_everything")},
	}
}

// streamsHome is a home with a SQLite source "db" and a model that answers
// steps.
func streamsHome(t *testing.T, steps []llmtest.Step) (home, *llmtest.Server) {
	srv := llmtest.NewServer(t, steps...)
	h := home{Dir: t.TempDir()}.withModel(t, srv.URL)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(dbtest.SQLite(t)))
	return h, srv
}

// TestStreamsJSONRPC runs each conformance stream through the built
// binary's JSON-RPC server, as the editors see it.
func TestStreamsJSONRPC(t *testing.T) {
	for _, tc := range binaryCases() {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := streamsHome(t, tc.steps(t))
			p := startProc(t, h, procOptions{})
			p.initialize(map[string]any{"capabilities": map[string]bool{"confirm": false}})
			var info conversation.Info
			p.client.Result("session/new", nil, &info)
			p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "db"}, nil)
			id := p.client.Start("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "how many rows?"})
			resp := p.client.Wait(id)
			require.Nil(t, resp.Error, "chat/turn: %s", resp.Raw)
			var ans conversation.Answer
			require.NoError(t, json.Unmarshal(resp.Result, &ans))

			var text, thought strings.Builder
			var statuses []string
			for _, e := range turnProgress(t, p.client, id) {
				switch e.Kind {
				case conversation.EventText:
					text.WriteString(e.Text)
				case conversation.EventThought:
					thought.WriteString(e.Text)
				case conversation.EventStatus:
					statuses = append(statuses, e.Message)
				}
			}
			assert.Equal(t, tc.text, text.String(), "the answer as it streamed")
			assert.Equal(t, tc.thought, thought.String(), "the thought as it streamed")
			assert.Equal(t, tc.thought, ans.Thoughts)
			assert.Equal(t, tc.stop, ans.StopReason)
			assert.Len(t, ans.Statements, tc.statements)
			if tc.warning != "" {
				assert.Contains(t, ans.Warnings, tc.warning)
			}
			if tc.status != "" {
				assert.True(t, containsPart(statuses, tc.status), "status lines %q lack %q", statuses, tc.status)
			}
			data, err := os.ReadFile(ans.SavedTo)
			require.NoError(t, err)
			require.NoError(t, sessiontest.CheckCLILoadRules(data))
			if tc.name == "reasoning_tool_call" {
				assert.Contains(t, string(data), `"reasoning_content": "I should run a query."`, "the file keeps the reasoning")
			}
		})
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// TestStreamsACP runs each conformance stream through the built binary's
// ACP agent.
func TestStreamsACP(t *testing.T) {
	for _, tc := range binaryCases() {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := streamsHome(t, tc.steps(t))
			a := startACP(t, h)
			a.call("initialize", map[string]any{"protocolVersion": 1})
			res, _ := a.call("session/new", map[string]any{"cwd": "/", "mcpServers": []any{}})
			var sess struct {
				SessionID string `json:"sessionId"`
			}
			require.NoError(t, json.Unmarshal(res, &sess))
			prompt := func(text string) (json.RawMessage, []json.RawMessage) {
				return a.call("session/prompt", map[string]any{"sessionId": sess.SessionID,
					"prompt": []any{map[string]string{"type": "text", "text": text}}})
			}
			prompt("/source db")
			res, updates := prompt("how many rows?")
			var stop struct {
				StopReason string `json:"stopReason"`
			}
			require.NoError(t, json.Unmarshal(res, &stop))
			assert.Equal(t, tc.stop, stop.StopReason)

			var text, thought strings.Builder
			calls := 0
			for _, raw := range updates {
				switch kind, chunk := acpUpdate(t, raw); kind {
				case "agent_message_chunk":
					text.WriteString(chunk)
				case "agent_thought_chunk":
					thought.WriteString(chunk)
				case "tool_call":
					calls++
				}
			}
			assert.Contains(t, text.String(), tc.text)
			assert.Equal(t, tc.thought, thought.String())
			assert.Equal(t, tc.statements+boolInt(tc.name == "unknown_tool"), calls)
			if tc.warning != "" {
				assert.Contains(t, text.String(), tc.warning)
			}
			if tc.status != "" {
				assert.Contains(t, text.String(), tc.status)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// acpProc is the built binary serving ACP, driven line by line.
type acpProc struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan []byte
	nextID int
}

func startACP(t *testing.T, h home) *acpProc {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, "acp", "--home", h.Dir)
	cmd.Env = childEnv()
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	a := &acpProc{t: t, in: in, lines: make(chan []byte, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			a.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(a.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("stderr of aiq-rpc acp:\n%s", stderr.String())
		}
		assertNoRace(t, stderr.String())
	})
	return a
}

// call sends a request and returns its result with the notifications that
// came before it.
func (a *acpProc) call(method string, params any) (json.RawMessage, []json.RawMessage) {
	a.t.Helper()
	a.nextID++
	id := a.nextID
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(a.t, err)
	_, err = a.in.Write(append(req, '\n'))
	require.NoError(a.t, err)
	var notes []json.RawMessage
	deadline := time.After(waitTimeout)
	for {
		select {
		case line, ok := <-a.lines:
			require.True(a.t, ok, "aiq-rpc acp ended before answering %s", method)
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			require.NoError(a.t, json.Unmarshal(line, &m), "%s", line)
			switch {
			case m.ID != nil && *m.ID == id && m.Method == "":
				require.Nil(a.t, m.Error, "%s: %s", method, line)
				return m.Result, notes
			case m.Method == "session/update":
				notes = append(notes, line)
			}
		case <-deadline:
			a.t.Fatalf("no answer to %s within %v", method, waitTimeout)
		}
	}
}

// TestStreamsTerminal: ask prints the answer on stdout and the thought
// apart on stderr; --json has the thought in its own field; a cut-off
// answer is said on stderr.
func TestStreamsTerminal(t *testing.T) {
	h, _ := streamsHome(t, []llmtest.Step{streamStep(t, "think_split"), streamStep(t, "reasoning_content"), streamStep(t, "length"),
		{ToolCalls: []llmtest.Call{{ID: "c1", Name: "drop_everything", Arguments: "{}"}}}, {Text: "Sorry."}})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "how many rows?")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "There are three rows.\n"), "the answer alone on stdout: %q", out)
	assert.Contains(t, errOut, "Counting the rows.\n", "the thought on stderr")
	assert.NotContains(t, out+errOut, "<think>")

	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "--json", "how many rows?")
	require.Equal(t, 0, code, errOut)
	var ans conversation.Answer
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	assert.Equal(t, "The user asks how many; count them.", ans.Thoughts)
	assert.NotContains(t, errOut, "count them", "--json shows the thought in its field only")

	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "tell me all")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "The first part of a long answer that\n"), out)
	assert.Contains(t, errOut, "warning: "+conversation.CutShortWarning)

	// A tool aiq does not have is said, and the turn goes on.
	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "drop it all")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out+errOut, conversation.UnknownToolMessage("drop_everything"))
	assert.Contains(t, out, "Sorry.")
}

// TestTextToolCallConfirms: a write written as a <tool_call> block goes
// through the classifier and chat/confirm exactly as a native call does.
func TestTextToolCallConfirms(t *testing.T) {
	body := llmtest.SSE(
		`{"choices":[{"index":0,"delta":{"content":"<tool_call>{\"name\":\"execute_sql\",\"arguments\":{\"sql\":\"CREATE TABLE t (a int)\"}}</tool_call>"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	h, _ := streamsHome(t, []llmtest.Step{{Body: body, ContentType: "text/event-stream"}, {Text: "Not created."}})
	p := startProc(t, h, procOptions{})
	asked := make(chan string, 1)
	p.client.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
		asked <- string(params)
		return map[string]string{"decision": "reject"}, nil
	})
	p.initialize(map[string]any{"capabilities": map[string]bool{"confirm": true}})
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "db"}, nil)
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "make a table"}, &ans)
	select {
	case params := <-asked:
		assert.Contains(t, params, "CREATE TABLE t")
	default:
		t.Fatal("the write was not confirmed first")
	}
	require.Len(t, ans.Statements, 1)
	assert.Equal(t, "rejected", ans.Statements[0].Status)
	assert.Equal(t, "Not created.", ans.Answer)
}

// TestReasoningRestored: a session saved after a reasoning model's tool
// call is restored by another process, which sends the reasoning back, so
// that a model that requires it (DeepSeek's thinking mode) still answers;
// the file passes the AIQ CLI's load rules.
func TestReasoningRestored(t *testing.T) {
	answer := streamStep(t, "reasoning_content")
	h, srv := streamsHome(t, []llmtest.Step{streamStep(t, "reasoning_tool_call"),
		llmtest.RequireReasoning("reasoning_content", answer), llmtest.RequireReasoning("reasoning_content", answer)})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "db", "--json", "how many rows?")
	require.Equal(t, 0, code, errOut)
	var first conversation.Answer
	require.NoError(t, json.Unmarshal([]byte(out), &first), out)
	data, err := os.ReadFile(first.SavedTo)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))

	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", first.SavedTo, "--json", "and again?")
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	var kept []string
	for _, m := range reqs[2].Messages {
		if len(m.ToolCalls) > 0 {
			kept = append(kept, m.ReasoningField+": "+m.Reasoning)
		}
	}
	assert.Equal(t, []string{"reasoning_content: I should run a query."}, kept, "the restored session sends the reasoning back")
}

// acpUpdate reads a session/update notification: the kind of its update
// and, for a message or thought chunk, its text.
func acpUpdate(t testing.TB, raw json.RawMessage) (kind, chunk string) {
	t.Helper()
	var n struct {
		Params struct {
			Update struct {
				Kind    string          `json:"sessionUpdate"`
				Content json.RawMessage `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(raw, &n))
	u := n.Params.Update
	if !strings.HasSuffix(u.Kind, "_chunk") {
		return u.Kind, ""
	}
	var c struct {
		Text string `json:"text"`
	}
	require.NoError(t, json.Unmarshal(u.Content, &c), "the content of %s", u.Kind)
	return u.Kind, c.Text
}
