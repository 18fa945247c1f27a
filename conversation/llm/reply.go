package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// chunk is one event of a chat completions stream, read leniently: go-openai's
// own types reject content given as an array of parts and arguments given
// as an object, which some servers send. A whole chat completion fits it
// too, with message in place of delta.
type chunk struct {
	Choices []choice        `json:"choices"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
}

type choice struct {
	Index        int    `json:"index"`
	Delta        delta  `json:"delta"`
	Message      delta  `json:"message"`
	FinishReason finish `json:"finish_reason"`
}

// finish records whether a finish reason was given, whatever its value.
type finish bool

func (f *finish) UnmarshalJSON(data []byte) error {
	*f = finish(!isNull(data) && string(data) != `""`)
	return nil
}

type delta struct {
	Content   content         `json:"content"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments arguments `json:"arguments"`
	} `json:"function"`
}

// content is a message's text: a string, null, an array of parts whose text
// parts are joined, or a single part.
type content string

func (c *content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || isNull(data):
		*c = ""
	case data[0] == '"' && bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data):
		// Most deltas: a string with nothing to unescape or to mend.
		*c = content(data[1 : len(data)-1])
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = content(s)
	case data[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(partText(p))
		}
		*c = content(b.String())
	case data[0] == '{':
		*c = content(partText(data))
	default: // a number or a boolean
		*c = content(data)
	}
	return nil
}

// partText is the text of one content part: a string, or a part of type
// "text" (or "output_text", or untyped) with a text field. Other parts,
// such as images or reasoning, have none.
func partText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var p struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	if json.Unmarshal(raw, &p) != nil || json.Unmarshal(p.Text, &s) != nil {
		return ""
	}
	switch p.Type {
	case "", "text", "output_text":
		return s
	}
	return ""
}

// arguments is a tool call's arguments: JSON text in a string, as the API
// defines it, or a JSON object, as some servers send. An object is the whole
// of the arguments, not a piece of them.
type arguments struct {
	text  string
	whole bool
}

func (a *arguments) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || isNull(data):
		*a = arguments{}
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*a = arguments{text: s}
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			return err
		}
		*a = arguments{text: buf.String(), whole: true}
	}
	return nil
}

// reply assembles a reply from its stream's chunks.
type reply struct {
	text     strings.Builder
	calls    []conversation.ToolCall
	slots    map[int]int // a delta's index -> its call's position in calls
	emitted  bool        // onText got text, which another try would repeat
	finished bool        // a finish reason arrived
}

// add reads one chunk, passing its text to onText.
func (r *reply) add(raw []byte, onText func(string), secret sessionio.Secret) error {
	var c chunk
	if err := decodeChunk(raw, &c); err != nil {
		return &APIError{Message: fmt.Sprintf("the model endpoint sent a stream event that is not a chat completion chunk: %v", err)}
	}
	if (len(c.Error) > 0 && !isNull(c.Error)) || c.Object == "error" {
		return streamError(parseErrorBody(raw), secret)
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice; a server that sends more sends ours first
		}
		r.finished = r.finished || bool(ch.FinishReason)
		r.addDelta(&ch.Delta, onText)
		r.addDelta(&ch.Message, onText)
	}
	return nil
}

func (r *reply) addDelta(d *delta, onText func(string)) {
	if d.Content != "" {
		r.text.WriteString(string(d.Content))
		r.emitted = true
		onText(string(d.Content))
	}
	for _, tc := range d.ToolCalls {
		c := &r.calls[r.slot(tc)]
		if c.ID == "" {
			c.ID = tc.ID
		}
		if c.Function.Name == "" {
			c.Function.Name = tc.Function.Name
		}
		if tc.Function.Arguments.whole {
			c.Function.Arguments = tc.Function.Arguments.text
		} else {
			c.Function.Arguments += tc.Function.Arguments.text
		}
	}
}

// slot returns the position in r.calls of the call a delta belongs to,
// adding a call when the delta starts one. Deltas carry an index; a delta
// under a known index still starts a new call when its id or name differs
// from the call's, as with servers that number every call 0. Without an
// index, a delta continues the last call unless it brings an id or a name
// of its own.
func (r *reply) slot(d toolCallDelta) int {
	if d.Index != nil {
		if i, ok := r.slots[*d.Index]; ok && !r.differs(i, d) {
			return i
		}
		if r.slots == nil {
			r.slots = make(map[int]int)
		}
		r.slots[*d.Index] = r.newCall()
		return r.slots[*d.Index]
	}
	last := len(r.calls) - 1
	switch {
	case last < 0:
		return r.newCall()
	case d.ID != "":
		if d.ID != r.calls[last].ID {
			return r.newCall()
		}
	case d.Function.Name != "" && r.calls[last].Function.Name != "":
		return r.newCall()
	}
	return last
}

// differs reports whether d names a call other than r.calls[i].
func (r *reply) differs(i int, d toolCallDelta) bool {
	c := r.calls[i]
	return (d.ID != "" && c.ID != "" && d.ID != c.ID) ||
		(d.Function.Name != "" && c.Function.Name != "" && d.Function.Name != c.Function.Name)
}

func (r *reply) newCall() int {
	r.calls = append(r.calls, conversation.ToolCall{Type: "function"})
	return len(r.calls) - 1
}

// result is the assembled reply. Calls with neither a name nor arguments
// are dropped: they are stray deltas, not calls.
func (r *reply) result() conversation.Reply {
	calls := slices.DeleteFunc(r.calls, func(c conversation.ToolCall) bool {
		return c.Function.Name == "" && c.Function.Arguments == ""
	})
	if len(calls) == 0 {
		calls = nil
	}
	return conversation.Reply{Content: r.text.String(), ToolCalls: calls}
}

// streamError is an error event in a stream. vLLM gives the HTTP status as
// the code.
func streamError(info errorBody, secret sessionio.Secret) *APIError {
	e := &APIError{}
	if code, err := strconv.Atoi(info.code); err == nil && code >= 400 && code < 600 {
		e.Status = code
	}
	e.contextLength = isContextLength(e.Status, info)
	e.retry = !e.contextLength && (e.Status >= 500 || info.kind == "server_error")
	e.said = detail(info.message, secret)
	said := e.said
	if said == "" {
		said = "no reason given"
	}
	if e.contextLength {
		e.Message = "the request does not fit the model's context window: " + said
	} else {
		e.Message = "the model endpoint reported an error in its answer: " + said
	}
	return e
}
