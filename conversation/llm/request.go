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
	"github.com/aiq/aiq-rpc/sessionio"
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
// a MarshalJSON whose output encoding/json checks and compacts again. The
// body is written directly, the same bytes as json.Marshal, with the
// session files' string encoder, and the long contents that an earlier
// request sent are copied from its encoding (see encodedContents): the
// history is most of the body, and encoding/json's reflection over it cost
// a turn 0.1 ms at 20 turns and 0.5 ms at 200. Tool calls without
// arguments get "{}", which go-openai would also leave out.
func (m *Model) requestBody(msgs []conversation.Message, tools []openai.Tool) (*builtBody, error) {
	// Room for the escapes: a tool result of JSON text holds an escaped
	// quote every few bytes, and a body that outgrows its first buffer
	// is copied into one twice its size (2.3 MB for 0.9 at 200 turns).
	size := len(m.model) + 64
	for _, msg := range msgs {
		if len(msg.Content) < minCachedContent {
			size += len(msg.Content) + len(msg.Content)/3
		}
		size += 64
		for _, c := range msg.ToolCalls {
			size += len(c.Function.Arguments) + len(c.Function.Arguments)/8 + 128
		}
	}
	built := &builtBody{}
	body := m.bodies.get(size)
	body = append(body, `{"model":`...)
	body = sessionio.AppendString(body, m.model)
	body = append(body, `,"messages":[`...)
	m.contents.mu.Lock()
	for i, msg := range msgs {
		if i > 0 {
			body = append(body, ',')
		}
		body = appendMessage(body, msg, m.contents, built)
	}
	m.contents.mu.Unlock()
	body = append(body, `],"stream":true`...)
	if len(tools) > 0 {
		encoded, err := json.Marshal(tools)
		if err != nil {
			return nil, fmt.Errorf("encode the request's tools: %w", err)
		}
		body = append(body, `,"tools":`...)
		body = append(body, encoded...)
	}
	built.buf = append(body, '}')
	return built, nil
}

// appendMessage appends m as go-openai's ChatCompletionMessage, with its
// content always present, and the reasoning kept on a message that calls
// tools in the field it came in: DeepSeek's thinking mode and Kimi answer
// 400 to a request whose tool calls lack it. The caller holds contents.mu.
func appendMessage(body []byte, m conversation.Message, contents *encodedContents, built *builtBody) []byte {
	body = append(body, `{"role":`...)
	body = sessionio.AppendString(body, string(m.Role))
	body = append(body, `,"content":`...)
	body = contents.appendContent(body, m.Content, built)
	if m.Name != "" {
		body = append(body, `,"name":`...)
		body = sessionio.AppendString(body, m.Name)
	}
	if len(m.ToolCalls) > 0 {
		// Where go-openai writes reasoning_content; reasoning, which it
		// does not know, goes in the same place.
		if field, text := conversation.Reasoning(m); field != "" {
			body = append(body, ',')
			body = sessionio.AppendString(body, field)
			body = append(body, ':')
			body = sessionio.AppendString(body, text)
		}
	}
	if len(m.ToolCalls) > 0 {
		body = append(body, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				body = append(body, ',')
			}
			body = appendToolCall(body, c)
		}
		body = append(body, ']')
	}
	if m.ToolCallID != "" {
		body = append(body, `,"tool_call_id":`...)
		body = sessionio.AppendString(body, m.ToolCallID)
	}
	return append(body, '}')
}

// appendToolCall appends c as go-openai's ToolCall of type function.
func appendToolCall(body []byte, c conversation.ToolCall) []byte {
	args := c.Function.Arguments
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if c.ID != "" {
		body = append(body, `{"id":`...)
		body = sessionio.AppendString(body, c.ID)
		body = append(body, ',')
	} else {
		body = append(body, '{')
	}
	body = append(body, `"type":"function","function":{`...)
	if c.Function.Name != "" {
		body = append(body, `"name":`...)
		body = sessionio.AppendString(body, c.Function.Name)
		body = append(body, ',')
	}
	body = append(body, `"arguments":`...)
	body = sessionio.AppendString(body, args)
	return append(body, "}}"...)
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
