package conversation

import (
	"context"
	"encoding/json"
	"slices"
)

// TranscriptTurn is one turn of a stored conversation, read back for a
// front end to show again: the question, then what the assistant said and
// did, in order.
type TranscriptTurn struct {
	User  string
	Steps []TranscriptStep
}

// TranscriptStep is one thing the assistant did: a piece of text, or a
// tool call with its result. Exactly one of Text and Call is set.
type TranscriptStep struct {
	Text string
	Call *TranscriptCall
}

// TranscriptCall is a stored tool call and what it returned.
type TranscriptCall struct {
	ID   string
	Tool string
	// Arguments are the call's arguments as a JSON object, nil when they
	// could not be read; SQL is their statement, if any.
	Arguments json.RawMessage
	SQL       string
	// Summary says what the call did, as the CLI's legacy list does.
	Summary string
	// Statement is the stored outcome of a statement: the rows the model
	// saw, which may be fewer than the statement returned. Nil for other
	// tools.
	Statement *Statement
	// Result is the tool message as stored: JSON text.
	Result string
	// Failed says that the call did not succeed (an error, a rejected or a
	// cancelled statement).
	Failed bool
}

// Transcript reads a session's complete messages as turns.
func (w *Workspace) Transcript(ctx context.Context, id string) ([]TranscriptTurn, error) {
	o, err := w.get(id)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	history := slices.Clone(o.s.History)
	o.mu.Unlock()
	return Transcript(history), nil
}

// Transcript groups complete messages into turns, each tool call matched
// with its result. Messages before the first user message, which a trimmed
// or hand-edited file may hold, form a turn with no question.
func Transcript(history []Message) []TranscriptTurn {
	var turns []TranscriptTurn
	calls := map[string]*TranscriptCall{}
	for _, m := range history {
		if m.Role == RoleUser || len(turns) == 0 {
			turns = append(turns, TranscriptTurn{})
		}
		t := &turns[len(turns)-1]
		switch m.Role {
		case RoleUser:
			t.User = m.Content
		case RoleAssistant:
			if m.Content != "" {
				t.Steps = append(t.Steps, TranscriptStep{Text: m.Content})
			}
			for _, c := range m.ToolCalls {
				call := transcriptCall(c)
				calls[c.ID] = call
				t.Steps = append(t.Steps, TranscriptStep{Call: call})
			}
		case RoleTool:
			if call := calls[m.ToolCallID]; call != nil {
				call.setResult(m.Content)
			}
		}
	}
	return turns
}

func transcriptCall(c ToolCall) *TranscriptCall {
	args, sql := callArgs(c)
	return &TranscriptCall{ID: c.ID, Tool: c.Function.Name, Arguments: args, SQL: sql}
}

// callArgs reads a call's arguments as a JSON object, and the statement
// among them, if any.
func callArgs(c ToolCall) (json.RawMessage, string) {
	args, err := toolArgs(c.Function.Arguments)
	if err != nil {
		return nil, ""
	}
	var sql struct {
		SQL string `json:"sql"`
	}
	if json.Unmarshal(args, &sql) != nil {
		return args, ""
	}
	return args, sql.SQL
}

// setResult reads a stored tool message: the model's view of a statement
// ({"status":"success","row_count":3,"columns":[...],"rows":[...]}), an
// error ({"status":"error","error":"..."}), or another tool's result.
func (c *TranscriptCall) setResult(content string) {
	c.Result = content
	c.Summary = summarize(ToolOutcome{Call: ToolCall{Function: FunctionCall{Name: c.Tool}}, Content: content})
	var r struct {
		Status    string   `json:"status"`
		Error     string   `json:"error"`
		RowCount  *int64   `json:"row_count"`
		Columns   []string `json:"columns"`
		Rows      [][]any  `json:"rows"`
		Truncated bool     `json:"truncated"`
		Warnings  []string `json:"warnings"`
	}
	if json.Unmarshal([]byte(content), &r) != nil {
		return
	}
	c.Failed = r.Status != "" && r.Status != "success"
	if r.Status == "" || c.SQL == "" {
		return
	}
	st := Statement{SQL: c.SQL, Status: r.Status, Columns: nonNil(r.Columns), Rows: nonNil(r.Rows), Error: r.Error, Warnings: r.Warnings}
	if r.RowCount != nil {
		st.RowCount = *r.RowCount
		st.Truncated = r.Truncated || len(r.Columns) > 0 && int64(len(r.Rows)) < *r.RowCount
	}
	c.Statement = &st
}
