package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// model is the name the server reports when a request names none.
const model = "llmtest-model"

// contextLengthError is OpenAI's answer to a request that does not fit.
var contextLengthError = map[string]any{"error": map[string]any{
	"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.",
	"type":    "invalid_request_error",
	"param":   "messages",
	"code":    "context_length_exceeded",
}}

// decodeRequest reads a chat completion request leniently: content may be
// a string, null or an array of parts, and arguments a string or an object.
func decodeRequest(r *http.Request) (Request, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return Request{}, fmt.Errorf("read the request body: %w", err)
	}
	var wire struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role             string          `json:"role"`
			Content          json.RawMessage `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        *string         `json:"reasoning"`
			ToolCallID       string          `json:"tool_call_id"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return Request{}, fmt.Errorf("the request body is not a chat completion request: %w", err)
	}
	req := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"),
		Model: wire.Model, Stream: wire.Stream, Body: body}
	for _, m := range wire.Messages {
		msg := Message{Role: m.Role, Content: text(m.Content), ToolCallID: m.ToolCallID}
		switch {
		case m.ReasoningContent != nil:
			msg.ReasoningField, msg.Reasoning = "reasoning_content", *m.ReasoningContent
		case m.Reasoning != nil:
			msg.ReasoningField, msg.Reasoning = "reasoning", *m.Reasoning
		}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: c.ID, Name: c.Function.Name, Arguments: text(c.Function.Arguments)})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wire.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	return req, nil
}

// text reads a JSON string as its value, an array of text parts as their
// joined text, null as "", and anything else as its JSON text.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// The wire shapes of answers. Optional fields are pointers or omitempty so
// that each chunk carries only what OpenAI's would.
type (
	chunkJSON struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
	}
	choice struct {
		Index        int     `json:"index"`
		Delta        *delta  `json:"delta,omitempty"`
		Message      *delta  `json:"message,omitempty"`
		FinishReason *string `json:"finish_reason"`
	}
	delta struct {
		Role      string     `json:"role,omitempty"`
		Content   *string    `json:"content,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	toolCall struct {
		Index    *int     `json:"index,omitempty"`
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
)

func chunk(c choice) chunkJSON {
	return chunkJSON{ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: 1767225600, Model: model, Choices: []choice{c}}
}

// streamChunks is a step's answer as the JSON of its stream's chunks: the
// role, the text word by word, each call's head and then its arguments in
// three pieces, and the finish reason.
func streamChunks(step Step) []string {
	out := []string{marshal(chunk(choice{Delta: &delta{Role: "assistant", Content: ptr("")}}))}
	pieces := words(step.Text)
	if step.Whole && step.Text != "" {
		pieces = []string{step.Text}
	}
	for _, piece := range pieces {
		out = append(out, marshal(chunk(choice{Delta: &delta{Content: ptr(piece)}})))
	}
	for i, c := range step.ToolCalls {
		head := toolCall{Index: ptr(i), ID: c.ID, Type: "function", Function: function{Name: c.Name}}
		out = append(out, marshal(chunk(choice{Delta: &delta{ToolCalls: []toolCall{head}}})))
		for _, piece := range thirds(c.Arguments) {
			part := toolCall{Index: ptr(i), Function: function{Arguments: piece}}
			out = append(out, marshal(chunk(choice{Delta: &delta{ToolCalls: []toolCall{part}}})))
		}
	}
	return append(out, marshal(chunk(choice{Delta: &delta{}, FinishReason: ptr(finishReason(step))})))
}

// completion is a step's answer as one chat completion, for requests that
// do not stream.
func completion(req Request, step Step) map[string]any {
	msg := &delta{Role: "assistant"}
	if step.Text != "" || len(step.ToolCalls) == 0 {
		msg.Content = ptr(step.Text)
	}
	for _, c := range step.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, toolCall{ID: c.ID, Type: "function", Function: function{Name: c.Name, Arguments: c.Arguments}})
	}
	name := req.Model
	if name == "" {
		name = model
	}
	return map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": 1767225600, "model": name,
		"choices": []choice{{Message: msg, FinishReason: ptr(finishReason(step))}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	}
}

func finishReason(step Step) string {
	if len(step.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// words splits s before each space that follows a word, so that the pieces
// join back to s. A single word is split in two, so that even a short
// answer streams in more than one piece.
func words(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	if len(out) == 1 && utf8.RuneCountInString(s) > 1 {
		return halves(s)
	}
	return out
}

func halves(s string) []string {
	mid := len(s) / 2
	for !utf8.RuneStart(s[mid]) {
		mid++
	}
	return []string{s[:mid], s[mid:]}
}

// thirds splits s into up to three pieces on rune boundaries; "" is one
// piece.
func thirds(s string) []string {
	var out []string
	start := 0
	for _, end := range []int{len(s) / 3, 2 * len(s) / 3, len(s)} {
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		if end > start {
			out = append(out, s[start:end])
			start = end
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": errorType(status), "param": nil, "code": nil,
	}})
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintln(w, marshal(v))
}

// marshal encodes v, whose types are all this package's own and always
// encode.
func marshal(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":{"message":%q}}`, errors.Join(errors.New("llmtest: encode an answer"), err).Error())
	}
	return string(data)
}

func ptr[T any](v T) *T {
	return &v
}
