package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/aiq/aiq-rpc/conversation"
)

// baseURL turns llm.url into the base go-openai appends /chat/completions
// to. It accepts what the AIQ CLI accepts: a base such as .../v1, a full
// .../chat/completions URL, or a bare host, which gets /v1.
func baseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("no model endpoint: set url in config.yaml's llm section, or AIQ_LLM_URL")
	}
	if !strings.Contains(raw, "://") {
		return "", errors.New("the model endpoint URL has no scheme: write it as http://… or https://… in config.yaml or AIQ_LLM_URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return "", fmt.Errorf("the model endpoint URL is not valid: %w; check url in config.yaml or AIQ_LLM_URL", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("the model endpoint URL's scheme is %q; use http or https", u.Scheme)
	case u.Host == "":
		return "", errors.New("the model endpoint URL has no host; check url in config.yaml or AIQ_LLM_URL")
	case u.RawQuery != "" || u.Fragment != "":
		return "", errors.New("the model endpoint URL has a query or a fragment, which the chat completions API does not use; remove it from url in config.yaml or AIQ_LLM_URL")
	}
	path := strings.TrimRight(u.Path, "/")
	path = strings.TrimRight(strings.TrimSuffix(path, "/chat/completions"), "/")
	if path == "" {
		path = "/v1"
	}
	u.Path, u.RawPath = path, ""
	return u.String(), nil
}

// requestBody is the JSON body of a chat request for msgs and tools: the
// fields and their order are those of go-openai's ChatCompletionRequest,
// except that every message has its content, "" when it has none, as
// strict servers require of an assistant message that only calls tools.
// go-openai would leave such content out, and marshals each message through
// a MarshalJSON whose output encoding/json checks and compacts again: at a
// few hundred turns of history that costs more than the turn's other work.
// Tool calls without arguments get "{}", which go-openai would also leave
// out.
func requestBody(model string, msgs []conversation.Message, tools []openai.Tool) ([]byte, error) {
	req := wireRequest{Model: model, Messages: make([]wireMessage, 0, len(msgs)), Stream: true, Tools: tools}
	for _, m := range msgs {
		wm := wireMessage{Role: string(m.Role), Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			args := c.Function.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			wm.ToolCalls = append(wm.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Function.Name, Arguments: args}})
		}
		req.Messages = append(req.Messages, wm)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	return body, nil
}

// wireRequest is go-openai's ChatCompletionRequest as this package sends it.
type wireRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Stream   bool          `json:"stream,omitempty"`
	Tools    []openai.Tool `json:"tools,omitempty"`
}

// wireMessage is go-openai's ChatCompletionMessage with content always
// present, and without a MarshalJSON method, so that encoding/json writes it
// in one pass.
type wireMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"content"`
	Name       string            `json:"name,omitempty"`
	ToolCalls  []openai.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
}

// emptySchema is the parameters of a tool that takes none.
const emptySchema = `{"type":"object","properties":{}}`

func chatTools(specs []conversation.ToolSpec) []openai.Tool {
	var tools []openai.Tool
	for _, s := range specs {
		params := s.Parameters
		if len(params) == 0 {
			params = json.RawMessage(emptySchema)
		}
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: s.Name, Description: s.Description, Parameters: params}})
	}
	return tools
}

// dropOldestTurn removes the oldest turn: the messages from the first user
// message up to the next one. The system prompt stays, and so does the
// current turn, the last user message and what follows it; when that is
// all that is left it reports false.
func dropOldestTurn(msgs []conversation.Message) ([]conversation.Message, bool) {
	isUser := func(m conversation.Message) bool { return m.Role == conversation.RoleUser }
	first := slices.IndexFunc(msgs, isUser)
	if first < 0 {
		return msgs, false
	}
	next := slices.IndexFunc(msgs[first+1:], isUser)
	if next < 0 {
		return msgs, false
	}
	return slices.Concat(msgs[:first], msgs[first+1+next:]), true
}
