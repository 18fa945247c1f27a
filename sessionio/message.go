package sessionio

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Role is the author of a chat message, as the chat completions API names
// it.
type Role string

// The roles of the chat completions API.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one element of raw_messages: an OpenAI chat message. Its
// content is always a string: DecodeMessage normalises whatever a stored
// file held there, as the AIQ CLI does.
type Message struct {
	Role       Role
	Content    string
	ToolCalls  []ToolCall // assistant messages only
	ToolCallID string     // tool messages only: the call this answers
	Name       string
	// Extra holds the keys the message was decoded with that this type does
	// not model (reasoning_content, for one), so a load and save keeps them.
	Extra map[string]json.RawMessage
}

// ToolCall is a function call requested by the model.
type ToolCall struct {
	ID       string
	Type     string // "function"
	Function FunctionCall
	Extra    map[string]json.RawMessage
}

// FunctionCall names the tool and carries its arguments as JSON text, as the
// API does.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON writes the message in the API's shape, content always present,
// followed by the extra keys in sorted order.
func (m Message) MarshalJSON() ([]byte, error) {
	type wire struct {
		Role       Role       `json:"role"`
		Content    string     `json:"content"`
		ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
		Name       string     `json:"name,omitempty"`
	}
	return MarshalWithExtra(wire{m.Role, m.Content, m.ToolCalls, m.ToolCallID, m.Name}, m.Extra)
}

// MarshalJSON writes the call in the API's shape plus its extra keys.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type wire struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function FunctionCall `json:"function"`
	}
	return MarshalWithExtra(wire{c.ID, c.Type, c.Function}, c.Extra)
}

// DecodeMessage decodes one stored chat message and normalises it as the AIQ
// CLI does: string content is kept, object or array content becomes its
// compact JSON text, a number or boolean its text, and null or missing
// content "". Tool-call arguments given as an object become JSON text. It
// fails for an element that cannot be used at all (not an object, no known
// role, a field of the wrong type); tool calls that cannot be used (no id,
// no function name) are dropped and reported in the warnings.
//
// Decode reads the usual shape of a message on its own in one pass over
// the file (see decodeMessageFast); everything else comes here.
func DecodeMessage(raw json.RawMessage) (Message, []string, error) {
	members, err := DecodeMembers(raw)
	if err != nil {
		return Message{}, nil, err
	}
	var m Message
	role, err := members.TakeString("role")
	if err != nil {
		return Message{}, nil, err
	}
	switch m.Role = Role(role); m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	case "":
		return Message{}, nil, errors.New("role: missing")
	default:
		return Message{}, nil, fmt.Errorf("role: unknown role %q", role)
	}
	if m.Content, err = members.TakeText("content"); err != nil {
		return Message{}, nil, err
	}
	if m.ToolCallID, err = members.TakeString("tool_call_id"); err != nil {
		return Message{}, nil, err
	}
	if m.Name, err = members.TakeString("name"); err != nil {
		return Message{}, nil, err
	}
	var warnings []string
	if raw, ok := members.Take("tool_calls"); ok && !IsNull(raw) {
		if m.ToolCalls, warnings, err = decodeToolCalls(raw); err != nil {
			return Message{}, nil, err
		}
	}
	if m.Role != RoleAssistant && len(m.ToolCalls) > 0 {
		return Message{}, nil, fmt.Errorf("tool_calls: only an assistant message may call tools, not a %s message", m.Role)
	}
	m.Extra = members.Rest()
	return m, warnings, nil
}

func decodeToolCalls(raw json.RawMessage) ([]ToolCall, []string, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, nil, fmt.Errorf("tool_calls: want an array, found %s", Kind(raw))
	}
	var calls []ToolCall
	var warnings []string
	seen := map[string]bool{}
	for i, elem := range elems {
		c, err := decodeToolCall(elem)
		if err == nil && seen[c.ID] {
			err = fmt.Errorf("id %q: used twice in one message", c.ID)
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("tool_calls[%d]: %v; dropped", i, err))
			continue
		}
		seen[c.ID] = true
		calls = append(calls, c)
	}
	return calls, warnings, nil
}

func decodeToolCall(raw json.RawMessage) (ToolCall, error) {
	members, err := DecodeMembers(raw)
	if err != nil {
		return ToolCall{}, err
	}
	var c ToolCall
	if c.ID, err = members.TakeString("id"); err != nil {
		return ToolCall{}, err
	}
	if c.ID == "" {
		return ToolCall{}, errors.New("id: missing, so no result can answer it")
	}
	if c.Type, err = members.TakeString("type"); err != nil {
		return ToolCall{}, err
	}
	switch c.Type {
	case "":
		c.Type = "function"
	case "function":
	default:
		// The API takes back only the kinds of call it made; ours are all
		// functions.
		return ToolCall{}, fmt.Errorf("type: want \"function\", found %q", c.Type)
	}
	fn, ok := members.Take("function")
	if !ok || IsNull(fn) {
		return ToolCall{}, errors.New("function: missing")
	}
	fnMembers, err := DecodeMembers(fn)
	if err != nil {
		return ToolCall{}, fmt.Errorf("function: %w", err)
	}
	if c.Function.Name, err = fnMembers.TakeString("name"); err != nil {
		return ToolCall{}, fmt.Errorf("function.%w", err)
	}
	if c.Function.Name == "" {
		return ToolCall{}, errors.New("function.name: missing")
	}
	if c.Function.Arguments, err = fnMembers.TakeText("arguments"); err != nil {
		return ToolCall{}, fmt.Errorf("function.%w", err)
	}
	c.Extra = members.Rest()
	return c, nil
}
