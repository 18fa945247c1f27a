package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
)

// testKey is the API key of every test; no error may ever show it.
const testKey = "sk-test-SECRET123"

// testModel is a Model against url whose waits between tries are recorded
// instead of slept.
type testModel struct {
	*Model
	waits []time.Duration
}

func newTestModel(t testing.TB, url string, edit ...func(*Config)) *testModel {
	t.Helper()
	cfg := Config{URL: url, APIKey: testKey, Model: "gpt-test"}
	for _, e := range edit {
		e(&cfg)
	}
	m, err := New(cfg)
	require.NoError(t, err)
	tm := &testModel{Model: m}
	m.sleep = func(ctx context.Context, d time.Duration) error {
		tm.waits = append(tm.waits, d)
		return ctx.Err()
	}
	return tm
}

// complete runs Complete and returns the reply, the text deltas and the
// error, checking that no error shows the key.
func complete(t testing.TB, m *testModel, req conversation.Request) (conversation.Reply, []string, error) {
	t.Helper()
	var deltas []string
	reply, err := m.Complete(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		assert.NotContains(t, err.Error(), testKey)
		assert.NotContains(t, fmt.Sprintf("%#v", err), testKey)
	}
	return reply, deltas, err
}

// question is a request with only a system prompt and a question.
func question(q string) conversation.Request {
	return conversation.Request{Messages: []conversation.Message{
		{Role: conversation.RoleSystem, Content: "You answer questions about the shop database."},
		{Role: conversation.RoleUser, Content: q},
	}}
}

func call(id, name, args string) conversation.ToolCall {
	return conversation.ToolCall{ID: id, Type: "function", Function: conversation.FunctionCall{Name: name, Arguments: args}}
}

// withHistory is a request of turns earlier turns, each a question, a tool
// call, its result and an answer, then the question q.
func withHistory(turns int, q string) conversation.Request {
	req := question("")
	req.Messages = req.Messages[:1]
	for i := 1; i <= turns; i++ {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			conversation.Message{Role: conversation.RoleUser, Content: fmt.Sprintf("question %d", i)},
			conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call(id, "execute_sql", `{"sql":"SELECT 1"}`)}},
			conversation.Message{Role: conversation.RoleTool, ToolCallID: id, Content: `{"status":"success","rows":[[1]]}`},
			conversation.Message{Role: conversation.RoleAssistant, Content: fmt.Sprintf("answer %d", i)})
	}
	req.Messages = append(req.Messages, conversation.Message{Role: conversation.RoleUser, Content: q})
	req.Tools = []conversation.ToolSpec{
		{Name: "execute_sql", Description: "Run one SQL statement.", Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}`)},
		{Name: "list_tables", Description: "List the tables."},
	}
	return req
}

func apiError(t testing.TB, err error) *APIError {
	t.Helper()
	var e *APIError
	require.ErrorAs(t, err, &e)
	return e
}

func TestURLForms(t *testing.T) {
	srv := llmtest.NewServer(t)
	host := strings.TrimSuffix(srv.URL, "/v1")
	for _, tc := range []struct{ url, path string }{
		{host + "/v1", "/v1/chat/completions"},
		{host + "/v1/", "/v1/chat/completions"},
		{host + "/v1/chat/completions", "/v1/chat/completions"},
		{host + "/v1/chat/completions/", "/v1/chat/completions"},
		{host, "/v1/chat/completions"},
		{host + "/", "/v1/chat/completions"},
		{"  " + host + "/api/v1//  ", "/api/v1/chat/completions"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			srv.Add(llmtest.Step{Text: "ok"})
			reply, _, err := complete(t, newTestModel(t, tc.url), question("hi"))
			require.NoError(t, err)
			assert.Equal(t, "ok", reply.Content)
			reqs := srv.Requests()
			assert.Equal(t, tc.path, reqs[len(reqs)-1].Path)
		})
	}
}

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct{ url, model, want string }{
		{"", "m", "set url in config.yaml"},
		{"localhost:11434/v1", "m", "no scheme"},
		{"ftp://example.com/v1", "m", `scheme is "ftp"`},
		{"http:///v1", "m", "no host"},
		{"http://127.0.0.1:1/v1?key=" + testKey, "m", "query"},
		{"http://user:" + testKey + "@[::1/v1", "m", "not valid"},
		{"http://127.0.0.1:1/v1", "  ", "AIQ_MODEL"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := New(Config{URL: tc.url, APIKey: testKey, Model: tc.model})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

func TestStreamText(t *testing.T) {
	// Paced, so that the pieces are not merged (see eventBody.hold).
	srv := llmtest.NewServer(t, llmtest.Step{Text: "There are three customers: alice, bob and carol.", Pace: 5 * time.Millisecond})
	reply, deltas, err := complete(t, newTestModel(t, srv.URL), withHistory(1, "How many customers?"))
	require.NoError(t, err)
	assert.Greater(t, len(deltas), 3, "the text streams in pieces")
	assert.Equal(t, "There are three customers: alice, bob and carol.", strings.Join(deltas, ""))
	assert.Equal(t, strings.Join(deltas, ""), reply.Content)
	assert.Empty(t, reply.ToolCalls)

	req := srv.Requests()[0]
	assert.Equal(t, "Bearer "+testKey, req.Authorization)
	assert.Equal(t, "gpt-test", req.Model)
	assert.True(t, req.Stream)
	assert.Equal(t, []string{"execute_sql", "list_tables"}, req.Tools)
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"system", "user", "assistant", "tool", "assistant", "user"}, roles)
	assert.Equal(t, []llmtest.Call{{ID: "call_1", Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}, req.Messages[2].ToolCalls)
	assert.Equal(t, "call_1", req.Messages[3].ToolCallID)
	assert.Equal(t, "How many customers?", req.Messages[5].Content)
}

// TestRequestShape checks the wire form of what go-openai would leave out
// or get wrong: content "" on an assistant message that only calls tools,
// "{}" for empty arguments, and an object schema for a tool without one.
func TestRequestShape(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "ok"})
	req := withHistory(0, "again")
	req.Messages = append(req.Messages[:len(req.Messages)-1],
		conversation.Message{Role: conversation.RoleUser, Content: "tables?"},
		conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c1", "list_tables", "")}},
		conversation.Message{Role: conversation.RoleTool, ToolCallID: "c1", Content: `["orders"]`},
		conversation.Message{Role: conversation.RoleAssistant, Content: ""},
		conversation.Message{Role: conversation.RoleUser, Content: "again"})
	_, _, err := complete(t, newTestModel(t, srv.URL), req)
	require.NoError(t, err)

	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(srv.Requests()[0].Body, &body))
	for i, m := range body.Messages {
		assert.Contains(t, m, "content", "message %d", i)
	}
	assert.JSONEq(t, `""`, string(body.Messages[2]["content"]))
	assert.JSONEq(t, `[{"id":"c1","type":"function","function":{"name":"list_tables","arguments":"{}"}}]`, string(body.Messages[2]["tool_calls"]))
	assert.JSONEq(t, `"c1"`, string(body.Messages[3]["tool_call_id"]))
	assert.JSONEq(t, `""`, string(body.Messages[4]["content"]))
	require.Len(t, body.Tools, 2)
	assert.Equal(t, "function", body.Tools[0].Type)
	assert.JSONEq(t, `{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}`, string(body.Tools[0].Function.Parameters))
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(body.Tools[1].Function.Parameters))
}

func TestNoKeyNoAuthorization(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "ok"})
	m := newTestModel(t, srv.URL, func(c *Config) { c.APIKey = "" })
	_, _, err := complete(t, m, question("hi"))
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[0].Authorization, "Ollama needs no key, and none is sent")
}

func TestToolCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []llmtest.Call
	}{
		{"one call", []llmtest.Call{{ID: "call_a", Name: "execute_sql", Arguments: `{"sql":"SELECT name FROM customers WHERE id = 1"}`}}},
		{"two parallel calls", []llmtest.Call{
			{ID: "call_a", Name: "execute_sql", Arguments: `{"sql":"SELECT count(*) FROM orders"}`},
			{ID: "call_b", Name: "list_tables", Arguments: `{}`},
		}},
		{"arguments with multibyte text", []llmtest.Call{{ID: "call_a", Name: "execute_sql", Arguments: `{"sql":"SELECT 'grüße, 東京'"}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Step{ToolCalls: tc.calls})
			reply, deltas, err := complete(t, newTestModel(t, srv.URL), question("q"))
			require.NoError(t, err)
			assert.Empty(t, deltas)
			assert.Empty(t, reply.Content)
			var want []conversation.ToolCall
			for _, c := range tc.calls {
				want = append(want, call(c.ID, c.Name, c.Arguments))
			}
			assert.Equal(t, want, reply.ToolCalls)
		})
	}
}

func TestTextAndCalls(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "Let me look.", ToolCalls: []llmtest.Call{{ID: "c", Name: "list_tables"}}})
	reply, deltas, err := complete(t, newTestModel(t, srv.URL), question("q"))
	require.NoError(t, err)
	assert.Equal(t, "Let me look.", strings.Join(deltas, ""))
	assert.Equal(t, "Let me look.", reply.Content)
	assert.Equal(t, []conversation.ToolCall{call("c", "list_tables", "")}, reply.ToolCalls)
}

func TestNotStreamed(t *testing.T) {
	// A server that ignores "stream": true and answers with one completion.
	body := `{
  "id": "x", "object": "chat.completion",
  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
    "content": [{"type": "text", "text": "Checking."}],
    "tool_calls": [{"function": {"name": "execute_sql", "arguments": {"sql": "SELECT 1"}}}]}}]
}`
	srv := llmtest.NewServer(t, llmtest.Step{Body: body})
	reply, deltas, err := complete(t, newTestModel(t, srv.URL), question("q"))
	require.NoError(t, err)
	assert.Equal(t, []string{"Checking."}, deltas)
	assert.Equal(t, conversation.Reply{Content: "Checking.", ToolCalls: []conversation.ToolCall{call("", "execute_sql", `{"sql":"SELECT 1"}`)},
		FinishReason: "tool_calls"}, reply)
}

func TestDropOldestTurn(t *testing.T) {
	req := withHistory(2, "now")
	msgs, ok := dropOldestTurn(req.Messages)
	require.True(t, ok)
	require.Len(t, msgs, 1+4+1)
	assert.Equal(t, conversation.RoleSystem, msgs[0].Role)
	assert.Equal(t, "question 2", msgs[1].Content)
	msgs, ok = dropOldestTurn(msgs)
	require.True(t, ok)
	assert.Equal(t, []string{"system", "user"}, rolesOf(msgs))
	_, ok = dropOldestTurn(msgs)
	assert.False(t, ok, "the current turn stays")

	current := append(question("q").Messages, conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c", "list_tables", "{}")}},
		conversation.Message{Role: conversation.RoleTool, ToolCallID: "c", Content: "[]"})
	_, ok = dropOldestTurn(current)
	assert.False(t, ok, "the current turn's tool results stay with it")
	assert.Len(t, current, 4, "the caller's slice is not changed")
}

func rolesOf(msgs []conversation.Message) []string {
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	return roles
}

// fitsUsers answers like an endpoint whose context window holds at most n
// user messages.
func fitsUsers(n int) func(llmtest.Request) llmtest.Step {
	return func(req llmtest.Request) llmtest.Step {
		users := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				users++
			}
		}
		if users > n {
			return llmtest.Step{ContextLength: true}
		}
		return llmtest.Step{Text: fmt.Sprintf("fits with %d questions", users)}
	}
}

func repeat(step llmtest.Step, n int) []llmtest.Step {
	steps := make([]llmtest.Step, n)
	for i := range steps {
		steps[i] = step
	}
	return steps
}

func TestContextLengthDropsOldestTurns(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Respond: fitsUsers(2)}, 10)...)
	m := newTestModel(t, srv.URL)
	reply, _, err := complete(t, m, withHistory(3, "now"))
	require.NoError(t, err)
	assert.Equal(t, "fits with 2 questions", reply.Content)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "4 questions, then 3, then 2")
	last := reqs[2].Messages
	assert.Equal(t, "system", last[0].Role)
	assert.Equal(t, "question 3", last[1].Content, "the oldest turns go first")
	assert.Equal(t, "call_3", last[3].ToolCallID, "a dropped turn's tool results go with it")
	assert.Equal(t, "now", last[len(last)-1].Content)
	assert.Empty(t, m.waits, "dropping a turn is not a retry")
}

func TestContextLengthCurrentTurnTooLong(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{ContextLength: true}, 10)...)
	_, _, err := complete(t, newTestModel(t, srv.URL), withHistory(2, "now"))
	require.ErrorIs(t, err, ErrContextLength)
	e := apiError(t, err)
	assert.Equal(t, 400, e.Status)
	assert.Contains(t, err.Error(), "the question and its tool results do not fit the model's context window")
	assert.Contains(t, err.Error(), "maximum context length is 8192 tokens", "the endpoint's own words")
	assert.Len(t, srv.Requests(), 3, "with 3, 2 and then 1 question")
}

func TestContextLengthOtherServers(t *testing.T) {
	for _, tc := range []struct {
		name string
		step llmtest.Step
	}{
		{"llama.cpp", llmtest.Step{Status: 400, Text: "the request exceeds the available context size, try increasing it"}},
		{"vLLM", llmtest.Step{Status: 400, Text: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."}},
		{"too many tokens", llmtest.Step{Status: 400, Text: "Too many tokens in the prompt"}},
		{"413", llmtest.Step{Status: 413, Text: "request entity too large"}},
		{"stream error event", llmtest.Step{Body: llmtest.SSE(`{"error":{"message":"context window exceeded","code":"context_length_exceeded"}}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step, llmtest.Step{Text: "ok"})
			reply, _, err := complete(t, newTestModel(t, srv.URL), withHistory(1, "now"))
			require.NoError(t, err)
			assert.Equal(t, "ok", reply.Content)
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			assert.Len(t, reqs[1].Messages, 2, "system prompt and the current question")
		})
	}
}

func TestRateLimitTokensIsNotContextLength(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Status: 429, Text: "Rate limit reached: too many tokens per min (TPM)"}, 3)...)
	m := newTestModel(t, srv.URL)
	_, _, err := complete(t, m, withHistory(1, "now"))
	e := apiError(t, err)
	assert.Equal(t, 429, e.Status)
	assert.NotErrorIs(t, err, ErrContextLength)
	for _, r := range srv.Requests() {
		assert.Len(t, r.Messages, 6, "no turn dropped")
	}
}

func TestAPIKeyNeverShown(t *testing.T) {
	for _, tc := range []struct {
		name string
		step llmtest.Step
	}{
		{"400 echo", llmtest.Step{Status: 400, Text: "invalid key " + testKey + " for this project"}},
		{"401 echo", llmtest.Step{Status: 401, Text: "Incorrect API key provided: " + testKey}},
		{"403 echo", llmtest.Step{Status: 403, Text: "key " + testKey + " may not use gpt-test"}},
		{"plain text", llmtest.Step{Status: 400, Body: "bad key " + testKey, ContentType: "text/plain"}},
		{"stream error", llmtest.Step{Body: llmtest.SSE(`{"error":{"message":"key ` + testKey + `"}}`)}},
		{"not a stream", llmtest.Step{Body: "key=" + testKey + "\n", ContentType: "text/plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step)
			_, _, err := complete(t, newTestModel(t, srv.URL), question("q"))
			require.Error(t, err)
			t.Log(err)
		})
	}
	m := newTestModel(t, "http://127.0.0.1:1/v1")
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, m.Model), testKey)
		assert.NotContains(t, fmt.Sprintf(verb, *m.Model), testKey)
	}
	assert.NotContains(t, fmt.Sprintf("%#v", Config{APIKey: testKey}), testKey)
}

func TestUnauthorized(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 401, Text: "Incorrect API key provided: sk-test-****T123."})
	m := newTestModel(t, srv.URL)
	_, _, err := complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Equal(t, 401, e.Status)
	assert.Equal(t, "the model endpoint refused the API key (HTTP 401); check api_key in config.yaml or AIQ_API_KEY", err.Error())
	assert.Len(t, srv.Requests(), 1, "no retry")
	assert.Empty(t, m.waits)
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	m := newTestModel(t, "http://"+addr+"/v1")
	_, _, err = complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Contains(t, e.Error(), "connection refused")
	assert.Contains(t, e.Error(), "AIQ_LLM_URL")
	assert.Empty(t, m.waits, "a server that is not there is not waited for")
}

func TestSecretType(t *testing.T) {
	// Config.APIKey is a Secret so that printing a Config never shows it.
	var s sessionio.Secret = testKey
	assert.Equal(t, "[redacted]", fmt.Sprint(s))
}

func TestConcurrent(t *testing.T) {
	const n = 8
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Text: "same answer for all"}, n)...)
	m := newTestModel(t, srv.URL)
	errs := make(chan error, n)
	for range n {
		go func() {
			reply, err := m.Complete(t.Context(), question("q"), func(string) {})
			if err == nil && reply.Content != "same answer for all" {
				err = fmt.Errorf("got %q", reply.Content)
			}
			errs <- err
		}()
	}
	for range n {
		assert.NoError(t, <-errs)
	}
}

// TestRequestBody checks the body sent, byte for byte, against go-openai's
// own encoding of the same request with content "" added where it leaves
// content out: the fields, their order and the escaping stay go-openai's.
func TestRequestBody(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "ok"})
	req := withHistory(2, `Which <b>orders</b> & "refunds", grüße 東京?`)
	req.Messages = append(req.Messages[:len(req.Messages)-1],
		conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c1", "list_tables", " ")},
			Extra: map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"Look <first> at \"tables\""`)}},
		conversation.Message{Role: conversation.RoleTool, ToolCallID: "c1", Content: "[\"orders\"]\n\u2028", Name: "list_tables"},
		// A call with neither id nor name, and text no editor should send.
		conversation.Message{Role: conversation.RoleAssistant, Content: "\x01\t\\", ToolCalls: []conversation.ToolCall{{Type: "function"}}},
		req.Messages[len(req.Messages)-1])
	_, _, err := complete(t, newTestModel(t, srv.URL), req)
	require.NoError(t, err)

	want := openai.ChatCompletionRequest{Model: "gpt-test", Stream: true, Tools: chatTools(req.Tools)}
	for _, m := range req.Messages {
		cm := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
		if field, text := conversation.Reasoning(m); field == "reasoning_content" && len(m.ToolCalls) > 0 {
			cm.ReasoningContent = text
		}
		for _, c := range m.ToolCalls {
			args := c.Function.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			cm.ToolCalls = append(cm.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Function.Name, Arguments: args}})
		}
		want.Messages = append(want.Messages, cm)
	}
	wantBody, err := json.Marshal(want)
	require.NoError(t, err)
	// go-openai writes content right after role, and leaves it out when
	// empty: put it back there.
	wantText := strings.ReplaceAll(string(wantBody), `"role":"assistant","tool_calls"`, `"role":"assistant","content":"","tool_calls"`)
	wantText = strings.ReplaceAll(wantText, `"role":"assistant","reasoning_content"`, `"role":"assistant","content":"","reasoning_content"`)
	got := srv.Requests()[0].Body
	assert.Equal(t, wantText, string(got))
	assert.Contains(t, wantText, `"reasoning_content":"Look \u003cfirst\u003e at \"tables\""`, "the reasoning goes back")
	assert.Contains(t, string(got), `\u003cb\u003eorders\u003c/b\u003e \u0026 \"refunds\"`, "escaped as go-openai escapes")

	var back openai.ChatCompletionRequest
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, want.Messages, back.Messages, "go-openai reads back the messages it was given")
}
