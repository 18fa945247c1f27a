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
	// Citations are the sources of the answer, as Perplexity sends them:
	// a list of URLs, read leniently in reply.add.
	Citations json.RawMessage `json:"citations"`
}

type choice struct {
	Index        int    `json:"index"`
	Delta        delta  `json:"delta"`
	Message      delta  `json:"message"`
	FinishReason finish `json:"finish_reason"`
}

// finish is a finish reason: "" when none was given, and the JSON text of
// a value that is not a string, which no server should send.
type finish string

func (f *finish) UnmarshalJSON(data []byte) error {
	var s string
	switch {
	case isNull(data):
		*f = ""
	case json.Unmarshal(data, &s) == nil:
		*f = finish(s)
	default:
		*f = finish(data)
	}
	return nil
}

type delta struct {
	Content content `json:"content"`
	// The reasoning, in the field of the server's choice.
	ReasoningContent content         `json:"reasoning_content"`
	Reasoning        content         `json:"reasoning"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
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
	text         strings.Builder // the answer, without tags and blocks
	thought      strings.Builder // the reasoning, from whichever field
	field        string          // the reasoning's wire field; "" for <think> tags
	content      splitter        // the content's stream
	reasoning    splitter        // the reasoning fields' stream
	calls        []conversation.ToolCall
	slots        map[int]int // a delta's index -> its call's position in calls
	emitted      bool        // text or reasoning was shown, which another try would repeat
	finished     bool        // a finish reason arrived
	finishReason string      // the last finish reason given
	sources      []string    // the answer's citations
	notes        []string
	// onThought hears the reasoning; nil drops it.
	onThought func(string)
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
	if len(c.Citations) > 0 {
		r.cite(c.Citations)
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice; a server that sends more sends ours first
		}
		if ch.FinishReason != "" {
			r.finished, r.finishReason = true, string(ch.FinishReason)
		}
		r.addDelta(&ch.Delta, onText)
		r.addDelta(&ch.Message, onText)
	}
	return nil
}

// cite keeps the citations of a chunk: a list of URLs, or of objects with
// a url. Servers repeat the list in every chunk; the last one counts.
func (r *reply) cite(raw json.RawMessage) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return
	}
	var urls []string
	for _, it := range items {
		var u string
		if json.Unmarshal(it, &u) != nil {
			var obj struct {
				URL string `json:"url"`
			}
			json.Unmarshal(it, &obj)
			u = obj.URL
		}
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) > 0 {
		r.sources = urls
	}
}

func (r *reply) addDelta(d *delta, onText func(string)) {
	if d.ReasoningContent != "" {
		r.addReasoning("reasoning_content", string(d.ReasoningContent), onText)
	}
	if d.Reasoning != "" {
		r.addReasoning("reasoning", string(d.Reasoning), onText)
	}
	if d.Content != "" {
		r.content.think = true
		r.content.feed(string(d.Content), r.sink(onText, false))
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

func (r *reply) addReasoning(field, text string, onText func(string)) {
	if r.field == "" {
		r.field = field
	}
	r.reasoning.feed(text, r.sink(onText, true))
}

// sink is where a splitter's pieces go: text to onText (thought text when
// fromReasoning), thoughts to onThought, tool-call blocks into calls.
func (r *reply) sink(onText func(string), fromReasoning bool) func(piece) {
	return func(p piece) {
		switch {
		case p.kind == pieceBlock:
			r.block(p.text, onText, fromReasoning)
		case p.kind == pieceThought || fromReasoning:
			r.showThought(p.text)
		default:
			r.showText(p.text, onText)
		}
	}
}

func (r *reply) showText(s string, onText func(string)) {
	if s == "" {
		return
	}
	r.text.WriteString(s)
	r.emitted = true
	onText(s)
}

func (r *reply) showThought(s string) {
	if r.thought.Len() == 0 {
		// Qwen3's template opens every reply with a <think> block, empty
		// when thinking is off: space alone is no thought.
		s = strings.TrimLeft(s, " \t\r\n")
	}
	if s == "" {
		return
	}
	r.thought.WriteString(s)
	r.emitted = true
	if r.onThought != nil {
		r.onThought(s)
	}
}

// block reads a <tool_call> block written as text. One that cannot be
// read is shown as it came, with a warning, and never run.
func (r *reply) block(body string, onText func(string), fromReasoning bool) {
	call, err := textToolCall(body)
	if err == nil {
		r.calls = append(r.calls, call)
		return
	}
	raw := tagToolCall + body + endToolCall
	if fromReasoning {
		r.showThought(raw)
	} else {
		r.showText(raw, onText)
	}
	r.addNote(fmt.Sprintf("The model wrote a tool call as text that could not be read (%v), so it was not run.", err))
}

func (r *reply) addNote(note string) {
	if !slices.Contains(r.notes, note) {
		r.notes = append(r.notes, note)
	}
}

// end passes on what the splitters still hold once the stream is over:
// text that only looked like the start of a tag, the reasoning of a
// <think> never closed, a <tool_call> never closed; then the citations.
func (r *reply) end(onText func(string)) {
	r.content.end(r.sink(onText, false))
	r.reasoning.end(r.sink(onText, true))
	if len(r.sources) > 0 && r.text.Len() > 0 {
		var b strings.Builder
		b.WriteString("\n\nSources:")
		for i, u := range r.sources {
			fmt.Fprintf(&b, "\n[%d] %s", i+1, u)
		}
		r.showText(b.String(), onText)
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
	out := conversation.Reply{Content: r.text.String(), ToolCalls: calls, FinishReason: r.finishReason,
		Reasoning: r.thought.String(), ReasoningField: r.field, Notes: r.notes}
	return out
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
