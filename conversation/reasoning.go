package conversation

import (
	"encoding/json"
	"errors"

	"strings"
)

// The stop reasons of a turn cut short by the model's endpoint.
const (
	// StopMaxTokens: the answer reached the model's output limit.
	StopMaxTokens = "max_tokens"
	// StopRefusal: the endpoint's content filter stopped the answer.
	StopRefusal = "refusal"
)

// OnlyReasoning is the answer of a reply that held reasoning and nothing
// else.
const OnlyReasoning = "The model only reasoned and gave no answer; its reasoning is shown above. Ask again, or ask it to answer."

// The warnings of a turn that stopped short.
const (
	CutShortWarning = "The model stopped at its output limit; the answer is cut short."
	RefusalWarning  = "The model's provider stopped the answer with its content filter; the answer is incomplete."
)

// ErrUnknownTool is the error of a call to a tool the session does not
// offer.
var ErrUnknownTool = errors.New("there is no tool")

// UnknownToolMessage says that the model called a tool that does not exist.
func UnknownToolMessage(name string) string {
	return "The model asked for a tool aiq does not have: " + name
}

// ReasoningFields are the message fields in which endpoints send a
// reply's reasoning and want it back: DeepSeek, Kimi, vLLM and llama.cpp
// use reasoning_content, OpenRouter and Ollama reasoning.
var ReasoningFields = []string{"reasoning_content", "reasoning"}

// stopReason is the stop reason of a turn whose last reply finished for
// reason.
func stopReason(reason string) string {
	switch reason {
	case FinishLength:
		return StopMaxTokens
	case FinishContentFilter:
		return StopRefusal
	}
	return StopEndTurn
}

// StopWarning is the warning for a turn that stopped for reason; "" for a
// complete answer.
func StopWarning(reason string) string {
	switch reason {
	case StopMaxTokens:
		return CutShortWarning
	case StopRefusal:
		return RefusalWarning
	}
	return ""
}

// SetReasoning keeps text on m in the message field the endpoint sent it
// in, where the session file keeps it too: raw_messages holds the API's
// messages, and the AIQ CLI passes keys it does not know through. An empty
// field or text sets nothing.
func SetReasoning(m *Message, field, text string) {
	if field == "" || strings.TrimSpace(text) == "" {
		return
	}
	data, err := json.Marshal(text)
	if err != nil {
		return // a string always encodes
	}
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[field] = data
}

// Reasoning returns the reasoning kept on m and the field it is in; ""
// when there is none or it is not a string.
func Reasoning(m Message) (field, text string) {
	for _, f := range ReasoningFields {
		raw, ok := m.Extra[f]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil && s != "" {
			return f, s
		}
	}
	return "", ""
}

// unknownTool returns the name of the tool an outcome asked for when the
// session has no such tool.
func unknownTool(o ToolOutcome) (string, bool) {
	if errors.Is(o.Err, ErrUnknownTool) {
		return o.Call.Function.Name, true
	}
	return "", false
}
