package acp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestBadLines: lines the SDK would drop without a word are answered, and
// the agent goes on serving.
func TestBadLines(t *testing.T) {
	cases := []struct {
		line, id string
		code     float64
		message  string
	}{
		{"this is not json", "null", -32700, "the line is not JSON"},
		{`{"jsonrpc":"2.0","id":7,"method":"session/new"`, "null", -32700, "not JSON"},
		{`[1,2,3]`, "null", -32600, "invalid request: a message is a JSON object, not an array"},
		{`"a string"`, "null", -32600, "invalid request: a message is a JSON object, not a string"},
		{`{"jsonrpc":"2.0","id":8,"method":42}`, "8", -32600, "invalid request: method must be a string, not a number"},
		{`{"jsonrpc":2,"id":15,"method":"session/list","params":{}}`, "15", -32600, `the message lacks "jsonrpc": "2.0"`},
		{`{"id":16,"method":"session/list","params":{}}`, "16", -32600, `the message lacks "jsonrpc": "2.0"`},
		{`{"jsonrpc":"2.0","id":17,"method":"session/list","params":{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`, "null", -32700, "nested too deeply (limit 10000)"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`, "null", -32600, "the id must be a string, a number or null"},
		{`{"jsonrpc":"2.0"}`, "null", -32600, "neither a method nor an id"},
		{`{"jsonrpc":"2.0","id":9,"method":"session/teleport","params":{}}`, "9", -32601, `unknown method "session/teleport": this agent answers authenticate, initialize, session/cancel`},
		{`{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":[]}`, "10", -32602, "invalid params for session/prompt: params must be an object"},
		{`{"jsonrpc":"2.0","id":11,"method":"session/prompt","params":{"sessionId":"x"}}`, "11", -32602, "prompt is required"},
		{`{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"/"}}`, "12", -32602, "mcpServers is required"},
		{`{"jsonrpc":"2.0","id":13,"method":"session/load","params":{"sessionId":3,"cwd":"/","mcpServers":[]}}`, "13", -32602, "sessionId must be a string, not number"},
		{`{"jsonrpc":"2.0","id":"s14","method":"session/prompt","params":{"sessionId":"nowhere","prompt":[{"type":"text","text":"hi"}]}}`, `"s14"`, -32002, `No open session has this id: "nowhere"; open it with session/new or session/load.`},
	}
	f := newFixture(t)
	f.initialize()
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			f.lines.reset()
			f.sendRaw(c.line)
			var got map[string]any
			f.lines.waitFor(t, "an answer", func(line []byte) bool {
				var m map[string]any
				if json.Unmarshal(line, &m) != nil || m["error"] == nil {
					return false
				}
				got = m
				return true
			})
			id, _ := json.Marshal(got["id"])
			assert.Equal(t, c.id, string(id))
			e := got["error"].(map[string]any)
			assert.Equal(t, c.code, e["code"])
			assert.Contains(t, e["message"], c.message)
			assert.NotContains(t, e["message"], "Go value", "the message quotes Go's internals")
			assert.NotContains(t, e["message"], "struct {", "the message quotes Go's internals")
		})
	}
	// Still serving.
	f.initialize()
	for _, line := range f.lines.all() {
		require.True(t, json.Valid(line), "stdout carries a line that is not JSON: %q", line)
	}
}

func TestLineTooLong(t *testing.T) {
	f := newFixture(t)
	f.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("x", 9<<20) + `"}}`)
	got := f.response("null")
	assert.Contains(t, got["error"].(map[string]any)["message"], "the message is over 8 MiB and was skipped")
	f.initialize()
}

// reset forgets the lines so far, so that the next answer is matched to
// the next line.
func (l *lineLog) reset() {
	l.mu.Lock()
	l.lines = nil
	l.mu.Unlock()
}

// TestBadPrompts: unsupported blocks and a second prompt while one runs
// are errors that say what to do; the running turn is not disturbed.
func TestBadPrompts(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "held", Hold: true}, llmtest.Step{Text: "Fine."})
	id := f.newSession()
	cases := []struct {
		block sdk.ContentBlock
		want  string
	}{
		{sdk.ImageBlock("aGk=", "image/png"), "prompt[0] is an image block, which this agent does not take (promptCapabilities.image is false)"},
		{sdk.AudioBlock("aGk=", "audio/wav"), "prompt[0] is an audio block"},
		{sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Blob: "aGk=", Uri: "file:///x.bin"}}), "binary resource"},
		{sdk.TextBlock("   "), "the prompt has no text"},
	}
	for _, c := range cases {
		_, err := f.prompt(id, c.block)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
		assert.Contains(t, err.Error(), "-32602")
	}
	_, err := f.prompt(id)
	require.Error(t, err)

	first := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := f.prompt(id, sdk.TextBlock("a long question"))
		assert.NoError(t, err)
		first <- res
	}()
	require.Eventually(t, func() bool { return len(f.model.Requests()) == 1 }, waitTimeout, time.Millisecond)
	_, err = f.prompt(id, sdk.TextBlock("a second question"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a turn is already running on this session; wait for it to finish or cancel it")
	assert.Contains(t, err.Error(), "-32030")
	select {
	case <-first:
		t.Fatal("the second prompt ended the first")
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: id}))
	assert.Equal(t, sdk.StopReasonCancelled, (<-first).StopReason)
	f.say(id, "and now?")
}

// TestPanic: a panic in one request is answered and logged; the next
// request works and the session is as it was.
func TestPanic(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "Fine."})
	id := f.newSession()
	_, err := f.prompt(id, sdk.TextBlock("please panic"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "internal error in session/prompt: a test asked for it; the agent goes on")
	f.say(id, "and now?")
	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Len(t, h.Turns, 2)
}

// TestModelError: a model that fails is an error the user can act on.
func TestModelError(t *testing.T) {
	f := newFixture(t, llmtest.Step{Status: 401, Text: "Incorrect API key provided"})
	id := f.newSession()
	_, err := f.prompt(id, sdk.TextBlock("hi"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-32020")
	assert.Contains(t, err.Error(), "401")
	for _, line := range f.lines.all() {
		assert.NotContains(t, string(line), testAPIKey)
		assert.NotContains(t, string(line), testPassword)
	}
}

// TestMaxTurnRequests: a model that keeps calling tools ends the turn with
// max_turn_requests, and the conversation is as it was.
func TestMaxTurnRequests(t *testing.T) {
	var steps []llmtest.Step
	for i := range 10 {
		steps = append(steps, sqlCall(fmt.Sprintf("call_%d", i), "SELECT 1"))
	}
	f := newFixture(t, steps...)
	id := f.newSession()
	res, err := f.prompt(id, sdk.TextBlock("loop"))
	require.NoError(t, err)
	assert.Equal(t, sdk.StopReasonMaxTurnRequests, res.StopReason)
	said := text(f.client.take())
	assert.Contains(t, said, "The model kept calling tools without answering after 10 requests")
	assert.NotContains(t, said, "run turn:")
	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Empty(t, h.Turns)
}

// TestConcurrentSessions: 20 sessions prompt at once, each its own
// statement; every one gets its own updates, in order, and its own file.
// Run with -race.
func TestConcurrentSessions(t *testing.T) {
	const n = 20
	f := newFixture(t)
	respond := func(req llmtest.Request) llmtest.Step {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "user" {
			k := strings.TrimPrefix(last.Content, "question ")
			return sqlCall("call_"+k, "SELECT "+k+" AS k")
		}
		return llmtest.Step{Text: "answer to " + strings.TrimPrefix(last.ToolCallID, "call_")}
	}
	for range 2 * n {
		f.model.Add(llmtest.Step{Respond: respond})
	}
	f.initialize()
	ids := make([]sdk.SessionId, n)
	for i := range ids {
		res, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{}})
		require.NoError(t, err)
		ids[i] = res.SessionId
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := f.prompt(id, sdk.TextBlock(fmt.Sprintf("question %d", i)))
			if assert.NoError(t, err) {
				assert.Equal(t, sdk.StopReasonEndTurn, res.StopReason)
			}
		}()
	}
	wg.Wait()
	for i, id := range ids {
		var seen []string
		for _, u := range f.client.of(id) {
			switch {
			case u.ToolCall != nil:
				seen = append(seen, "call "+u.ToolCall.Title)
			case u.ToolCallUpdate != nil:
				seen = append(seen, "result "+toolText(u.ToolCallUpdate.Content))
			case u.AgentMessageChunk != nil:
				seen = append(seen, "text "+u.AgentMessageChunk.Content.Text.Text)
			}
		}
		k := fmt.Sprint(i)
		assert.Equal(t, []string{"call SELECT " + k + " AS k", "result ```sql\nSELECT " + k + " AS k\n```\n\n| k |\n| --- |\n| " + k + " |\n\n(1 row)", "text answer to " + k}, mergeText(seen))
		assert.Contains(t, string(readFile(t, string(id))), "answer to "+k)
	}
}

// mergeText joins consecutive text pieces, which stream in several chunks.
func mergeText(seen []string) []string {
	var out []string
	for _, s := range seen {
		if strings.HasPrefix(s, "text ") && len(out) > 0 && strings.HasPrefix(out[len(out)-1], "text ") {
			out[len(out)-1] += strings.TrimPrefix(s, "text ")
			continue
		}
		out = append(out, s)
	}
	return out
}
