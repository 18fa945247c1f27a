package llmtest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestNotStreamed(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "hello", ToolCalls: []llmtest.Call{{ID: "c1", Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}})
	resp := post(t, srv.URL+"/chat/completions", `{"model":"m","messages":[
		{"role":"system","content":"s"},
		{"role":"user","content":[{"type":"text","text":"q"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"list_tables","arguments":{}}}]},
		{"role":"tool","tool_call_id":"a","content":"[]"}],
		"tools":[{"type":"function","function":{"name":"execute_sql","parameters":{}}}]}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var got struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	assert.Equal(t, "chat.completion", got.Object)
	require.Len(t, got.Choices, 1)
	assert.Equal(t, "hello", got.Choices[0].Message.Content)
	assert.Equal(t, "tool_calls", got.Choices[0].FinishReason)
	assert.Equal(t, `{"sql":"SELECT 1"}`, got.Choices[0].Message.ToolCalls[0].Function.Arguments)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, 1, r.N)
	assert.Equal(t, "/v1/chat/completions", r.Path)
	assert.Equal(t, "Bearer k", r.Authorization)
	assert.False(t, r.Stream)
	assert.Equal(t, []string{"execute_sql"}, r.Tools)
	assert.Equal(t, []llmtest.Message{
		{Role: "system", Content: "s"},
		{Role: "user", Content: "q"},
		{Role: "assistant", ToolCalls: []llmtest.Call{{ID: "a", Name: "list_tables", Arguments: "{}"}}},
		{Role: "tool", Content: "[]", ToolCallID: "a"},
	}, r.Messages)
}

func TestStreamed(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "one two", ToolCalls: []llmtest.Call{{ID: "c1", Name: "f", Arguments: `{"a":"bcdef"}`}}})
	resp := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, "[DONE]", events[len(events)-1])
	var text, args strings.Builder
	for _, e := range events[:len(events)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(e), &c))
		text.WriteString(c.Choices[0].Delta.Content)
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			args.WriteString(tc.Function.Arguments)
		}
	}
	assert.Equal(t, "one two", text.String())
	assert.Equal(t, `{"a":"bcdef"}`, args.String())
	assert.Greater(t, len(events), 6, "role, 2 words, a call's head and 3 pieces of arguments, finish, [DONE]")
	assert.True(t, srv.Requests()[0].Stream)
}

func TestErrorsAndScriptEnd(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 429, RetryAfter: "2"}, llmtest.Step{ContextLength: true})
	resp := post(t, srv.URL+"/chat/completions", `{"messages":[]}`)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	resp = post(t, srv.URL+"/chat/completions", `{"messages":[]}`)
	assert.Equal(t, 400, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "context_length_exceeded")
	resp = post(t, srv.URL+"/chat/completions", `{"messages":[]}`)
	assert.Equal(t, 500, resp.StatusCode)
	body, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), "llmtest: no scripted step left for request 3")

	resp = post(t, srv.URL+"/embeddings", `{}`)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Len(t, srv.Requests(), 3, "only chat completion requests count")
}

func TestRespond(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Add(llmtest.Step{Respond: func(r llmtest.Request) llmtest.Step {
		return llmtest.Step{Text: "you said " + r.Messages[0].Content}
	}})
	resp := post(t, srv.URL+"/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"content":"you said hi"`)
}

func TestSSE(t *testing.T) {
	assert.Equal(t, "data: {}\n\ndata: [DONE]\n\n", llmtest.SSE("{}"))
}

// TestStreamedWhole: Whole sends the text in one chunk, between the role
// and the finish reason.
func TestStreamedWhole(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "one two three", Whole: true})
	resp := post(t, srv.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`)
	var texts []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content *string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &c))
		if content := c.Choices[0].Delta.Content; content != nil && *content != "" {
			texts = append(texts, *content)
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, []string{"one two three"}, texts)
}
