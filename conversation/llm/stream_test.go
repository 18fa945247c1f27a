package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// waitTimeout bounds a wait for an event; only a hang reaches it, even on
// a loaded machine.
const waitTimeout = 2 * time.Minute

// The streams below are shaped as servers other than OpenAI's send them.
func TestLenientStreams(t *testing.T) {
	sql := call("", "execute_sql", `{"sql":"SELECT 1"}`)
	for _, tc := range []struct {
		name string
		body string
		want conversation.Reply
	}{
		{"missing ids and type", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"execute_sql","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"sql\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"SELECT 1\"}"}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{sql}}},
		{"arguments as an object", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"execute_sql","arguments":{"sql": "SELECT 1"}}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", `{"sql":"SELECT 1"}`)}}},
		{"content as an array of parts", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Three "},{"type":"image_url","image_url":{"url":"x"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"customers."}]}}]}`,
		), conversation.Reply{Content: "Three customers."}},
		{"null content", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}`,
			`{"choices":[{"index":0,"delta":{"content":null},"finish_reason":"stop"}]}`,
		), conversation.Reply{Content: "ok", FinishReason: "stop"}},
		{"deltas without index", llmtest.SSE(
			`{"choices":[{"delta":{"tool_calls":[{"id":"c1","function":{"name":"execute_sql"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"sql\":\"SELECT 1\"}"}}]}}]}`,
			`{"choices":[{"delta":{"tool_calls":[{"id":"c2","function":{"name":"list_tables","arguments":"{}"}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", `{"sql":"SELECT 1"}`), call("c2", "list_tables", "{}")}}},
		{"whole calls without index or id", llmtest.SSE(
			`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}},{"function":{"name":"list_tables","arguments":"{}"}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{sql, call("", "list_tables", "{}")}}},
		{"every call at index 0", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c2","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 2\"}"}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", `{"sql":"SELECT 1"}`), call("c2", "execute_sql", `{"sql":"SELECT 2"}`)}}},
		{"interleaved parallel calls", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"execute_sql","arguments":""}},{"index":1,"id":"c2","function":{"name":"list_tables","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{"}},{"index":0,"function":{"arguments":"{\"sql\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"SELECT 1\"}"}},{"index":1,"function":{"arguments":"}"}}]}}]}`,
		), conversation.Reply{ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", `{"sql":"SELECT 1"}`), call("c2", "list_tables", "{}")}}},
		{"a second choice is ignored", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"content":"mine"}},{"index":1,"delta":{"content":"other"}}]}`,
		), conversation.Reply{Content: "mine"}},
		{"comments, event fields, CRLF and no space after data:", "" +
			": keep-alive\r\n\r\n" +
			"event: message\r\nid: 1\r\nretry: 100\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n" +
			": OPENROUTER PROCESSING\n\n" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n" +
			"data: [DONE]\n\n",
			conversation.Reply{Content: "ab"}},
		{"empty data field", "data:\n\n" + llmtest.SSE(`{"choices":[{"delta":{"content":"ok"}}]}`),
			conversation.Reply{Content: "ok"}},
		{"usage chunk without choices", llmtest.SSE(
			`{"choices":[{"delta":{"content":"ok"}}]}`,
			`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		), conversation.Reply{Content: "ok"}},
		{"finished without [DONE]", "" +
			"data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
			conversation.Reply{Content: "ok", FinishReason: "stop"}},
		{"stray empty tool-call delta", llmtest.SSE(
			`{"choices":[{"index":0,"delta":{"content":"ok","tool_calls":[{"index":0,"function":{}}]}}]}`,
		), conversation.Reply{Content: "ok"}},
		{"many keep-alives", strings.Repeat(": ping\n\n", 1000) + llmtest.SSE(`{"choices":[{"delta":{"content":"ok"}}]}`),
			conversation.Reply{Content: "ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Step{Body: tc.body, ContentType: "text/event-stream"})
			reply, deltas, err := complete(t, newTestModel(t, srv.URL), question("q"))
			require.NoError(t, err)
			for i := range tc.want.ToolCalls {
				tc.want.ToolCalls[i].Type = "function"
			}
			assert.Equal(t, tc.want, reply)
			assert.Equal(t, tc.want.Content, strings.Join(deltas, ""))
		})
	}
}

func TestMalformedAnswers(t *testing.T) {
	html := "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>hello</body></html>\n"
	for _, tc := range []struct {
		name  string
		steps []llmtest.Step
		want  string // in the error
		tries int
	}{
		{"HTML page", []llmtest.Step{{Body: html}},
			"answered with an HTML page, not a chat completion", 1},
		{"HTML error page", repeat(llmtest.Step{Status: 502, Body: html}, 3),
			"the model endpoint failed (HTTP 502 Bad Gateway); gave up after 3 tries", 3},
		{"truncated JSON", []llmtest.Step{{Body: `{"choices":[{"message":{"content":"hel`, ContentType: "application/json"}},
			"answered with malformed JSON", 1},
		{"data that is not JSON", []llmtest.Step{{Body: llmtest.SSE("hello")}},
			"sent a stream event that is not a chat completion chunk", 1},
		{"data of the wrong shape", []llmtest.Step{{Body: llmtest.SSE(`{"choices":{"index":0}}`)}},
			"sent a stream event that is not a chat completion chunk", 1},
		{"stream cut before finishing", repeat(llmtest.Step{Body: "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"}, 3),
			"stream ended before the answer was complete; gave up after 3 tries", 3},
		{"empty body", repeat(llmtest.Step{Body: "\n", ContentType: "text/event-stream"}, 3),
			"sent an empty answer; gave up after 3 tries", 3},
		{"error event", []llmtest.Step{{Body: llmtest.SSE(`{"error":{"message":"model overloaded, try later","type":"invalid_request_error"}}`)}},
			"reported an error in its answer: model overloaded, try later", 1},
		{"event: error", []llmtest.Step{{Body: "event: error\ndata: {\"message\":\"bad things\"}\n\n"}},
			"reported an error in its answer: bad things", 1},
		{"vLLM error object", []llmtest.Step{{Body: llmtest.SSE(`{"object":"error","message":"invalid tool schema","type":"BadRequestError","code":400}`)}},
			"reported an error in its answer: invalid tool schema", 1},
		{"Ollama error", []llmtest.Step{{Status: 404, Body: `{"error":"model \"llama9\" not found, try pulling it first"}`}},
			`(HTTP 404 Not Found): model "llama9" not found, try pulling it first; check url`, 1},
		{"FastAPI detail", []llmtest.Step{{Status: 422, Body: `{"detail":[{"loc":["body","messages"],"msg":"field required"}]}`}},
			`(HTTP 422 Unprocessable Entity): [{"loc":["body","messages"],"msg":"field required"}]`, 1},
		{"quota", []llmtest.Step{{Status: 429, Body: `{"error":{"message":"You exceeded your current quota.","code":"insufficient_quota"}}`}},
			"the API key's quota is used up (HTTP 429 Too Many Requests): You exceeded your current quota.; check the account's plan and billing", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.steps...)
			_, _, err := complete(t, newTestModel(t, srv.URL), question("q"))
			e := apiError(t, err)
			assert.Contains(t, e.Error(), tc.want)
			assert.NotContains(t, e.Error(), "<", "no markup")
			assert.Len(t, srv.Requests(), tc.tries)
		})
	}
}

func TestBodyBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		step llmtest.Step
	}{
		{"endless stream", llmtest.Step{Endless: true}},
		{"one endless line", llmtest.Step{Body: "data: " + strings.Repeat("x", 1<<20), ContentType: "text/event-stream"}},
		{"huge JSON answer", llmtest.Step{Body: `{"choices":[{"message":{"content":"` + strings.Repeat("x", 1<<20) + `"}}]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step)
			m := newTestModel(t, srv.URL, func(c *Config) { c.MaxBodyBytes = 64 << 10 })
			_, deltas, err := complete(t, m, question("q"))
			e := apiError(t, err)
			assert.Contains(t, e.Error(), "the model endpoint's answer is longer than 64 KiB; it was cut off")
			assert.Len(t, srv.Requests(), 1, "not retried")
			var n int
			for _, d := range deltas {
				n += len(d)
			}
			assert.LessOrEqual(t, n, 64<<10)
		})
	}
	// A body of exactly the bound is fine.
	body := llmtest.SSE(`{"choices":[{"delta":{"content":"ok"}}]}`)
	srv := llmtest.NewServer(t, llmtest.Step{Body: body})
	m := newTestModel(t, srv.URL, func(c *Config) { c.MaxBodyBytes = int64(len(body)) })
	reply, _, err := complete(t, m, question("q"))
	require.NoError(t, err)
	assert.Equal(t, "ok", reply.Content)
}

func TestCutAfterText(t *testing.T) {
	// Text already shown must not be shown twice: no retry.
	srv := llmtest.NewServer(t, llmtest.Step{Text: "one two three four", CutAfter: 3}, llmtest.Step{Text: "again"})
	m := newTestModel(t, srv.URL)
	_, deltas, err := complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Equal(t, "one two", strings.Join(deltas, ""))
	assert.Contains(t, e.Error(), "closed the connection in the middle of its answer; the answer shown so far is incomplete")
	assert.Len(t, srv.Requests(), 1)
	assert.Empty(t, m.waits)
}

func TestCancelWhileHeld(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "never sent", Hold: true})
	m := newTestModel(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Complete(ctx, question("q"), func(string) {})
		done <- err
	}()
	require.Eventually(t, func() bool { return len(srv.Requests()) == 1 }, waitTimeout, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // let the first chunk arrive and the read block
	cancel()
	select {
	case err := <-done:
		// The server holds its answer: returning at all means the cancel
		// closed the stream.
		require.ErrorIs(t, err, context.Canceled)
		var e *APIError
		assert.False(t, errors.As(err, &e), "a cancellation is not the endpoint's failure")
	case <-time.After(waitTimeout):
		t.Fatal("Complete did not return after cancel")
	}
}

func TestCancelBeforeAnswer(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "late", Delay: time.Minute})
	m := newTestModel(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Complete(ctx, question("q"), nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 503}, llmtest.Step{Text: "ok"})
	m, err := New(Config{URL: srv.URL, Model: "m"})
	require.NoError(t, err)
	m.backoff = time.Hour // the real sleep, far longer than the test may take
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		require.Eventually(t, func() bool { return len(srv.Requests()) == 1 }, waitTimeout, time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err = m.Complete(ctx, question("q"), nil)
	require.ErrorIs(t, err, context.Canceled)
	// Not a measure of speed: only a sleep the cancel did not end lasts
	// this long.
	assert.Less(t, time.Since(start), waitTimeout)
}

func TestIdleTimeout(t *testing.T) {
	for _, tc := range []struct {
		name string
		step llmtest.Step
	}{
		{"no answer", llmtest.Step{Text: "late", Delay: time.Minute}},
		{"stream stalls", llmtest.Step{Text: "stalls", Hold: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step)
			m := newTestModel(t, srv.URL, func(c *Config) { c.Timeout = 100 * time.Millisecond })
			_, _, err := complete(t, m, question("q"))
			e := apiError(t, err)
			assert.Equal(t, "the model endpoint sent nothing for 100ms; it may be overloaded or still loading the model; try again", e.Error())
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Len(t, srv.Requests(), 1)
		})
	}
}

func TestSlowStreamWithinTimeout(t *testing.T) {
	// The timeout bounds each wait, not the whole answer: 18 chunks 250 ms
	// apart take longer than the timeout of 3 s, but no gap comes near it,
	// even on a loaded machine.
	text := "a b c d e f g h i j k l m n o p"
	srv := llmtest.NewServer(t, llmtest.Step{Text: text, Pace: 250 * time.Millisecond})
	m := newTestModel(t, srv.URL, func(c *Config) { c.Timeout = 3 * time.Second })
	start := time.Now()
	reply, _, err := complete(t, m, question("q"))
	require.NoError(t, err)
	assert.Equal(t, text, reply.Content)
	assert.Greater(t, time.Since(start), 3*time.Second)
}
