package conversation

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The kinds of Event.
const (
	EventText       = "text"
	EventToolCall   = "tool_call"
	EventToolResult = "tool_result"
	// EventRows is the first page of a statement's rows while it still
	// runs: at most once a tool call, before its tool_result.
	EventRows   = "rows"
	EventStatus = "status"
	EventChart  = "chart"
	// EventThought is a piece of the model's reasoning, shown apart from
	// the answer.
	EventThought = "thought"
)

// Event is something a turn did, for the editor to show as it happens.
type Event struct {
	Kind string `json:"kind"`
	// Text is a piece of the answer (text) or of the reasoning (thought).
	Text string `json:"text,omitempty"`
	// Tool and CallID name the tool call (tool_call, tool_result).
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"callId,omitempty"`
	// Arguments are the call's arguments, and SQL its statement if it has
	// one (tool_call).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	SQL       string          `json:"sql,omitempty"`
	// Summary says what a tool did; Statement is a statement's outcome with
	// its rows (tool_result), or its first page while it runs (rows).
	Summary   string     `json:"summary,omitempty"`
	Statement *Statement `json:"statement,omitempty"`
	// Failed says that the call did not succeed: the tool's error, or a
	// statement that failed, was rejected or was cancelled (tool_result).
	Failed bool `json:"failed,omitempty"`
	// Chart is a chart to draw (chart).
	Chart any `json:"chart,omitempty"`
	// Message is a status line (status).
	Message string `json:"message,omitempty"`
	// RowsWritten counts the rows an export wrote so far (status).
	RowsWritten int64 `json:"rowsWritten,omitempty"`
	// Output is the tool's result as the model read it (tool_result), for
	// a front end that shows it; the editor protocol leaves it out.
	Output string `json:"-"`
}

// SQLResult is a tool result that is a statement's outcome: the model gets
// ForModel, a bounded view, and the editor gets the Statement.
type SQLResult struct {
	Statement Statement
	ForModel  any
}

// MarshalJSON encodes what the model reads, without HTML escapes, as
// toolContent writes every result: json.Marshal would turn the "<" of a
// masked token into "\u003c" before toolContent sees it.
func (r SQLResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.ForModel); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ChartResult is a tool result that asks the editor to draw a chart.
type ChartResult struct {
	Chart any
}

// MarshalJSON encodes what the model reads: the chart itself, which is small.
func (r ChartResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.Chart) }

// recorder turns the Runner's progress into events and keeps what a
// cancelled turn still reports: the text so far and the statements run.
type recorder struct {
	listen     func(Event)
	text       strings.Builder
	thoughts   strings.Builder
	statements []Statement
}

func (r *recorder) Thought(delta string) {
	r.thoughts.WriteString(delta)
	r.listen(Event{Kind: EventThought, Text: delta})
}

func (r *recorder) Note(message string) {
	r.listen(Event{Kind: EventStatus, Message: message})
}

func (r *recorder) Text(delta string) {
	r.text.WriteString(delta)
	r.listen(Event{Kind: EventText, Text: delta})
}

func (r *recorder) ToolStarted(call ToolCall) {
	e := Event{Kind: EventToolCall, Tool: call.Function.Name, CallID: call.ID}
	e.Arguments, e.SQL = callArgs(call)
	r.listen(e)
}

func (r *recorder) ToolRows(call ToolCall, st Statement) {
	st.CallID = call.ID
	r.listen(Event{Kind: EventRows, Tool: call.Function.Name, CallID: call.ID, Statement: &st})
}

func (r *recorder) ToolFinished(o ToolOutcome) {
	e := Event{Kind: EventToolResult, Tool: o.Call.Function.Name, CallID: o.Call.ID, Summary: summarize(o), Failed: o.Err != nil,
		Output: o.Content}
	if name, ok := unknownTool(o); ok {
		e.Summary = UnknownToolMessage(name)
		r.listen(Event{Kind: EventStatus, Message: e.Summary})
	}
	switch res := o.Result.(type) {
	case SQLResult:
		st := res.Statement
		st.CallID = o.Call.ID
		r.statements = append(r.statements, st)
		e.Statement = &st
		e.Failed = st.Status != "success"
	case ChartResult:
		r.listen(Event{Kind: EventChart, Tool: e.Tool, CallID: e.CallID, Chart: res.Chart})
	}
	r.listen(e)
}
