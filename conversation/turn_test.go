package conversation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Progress that keeps what it heard, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) Text(delta string) { r.add("text " + delta) }
func (r *recorder) ToolStarted(c conversation.ToolCall) {
	r.add("call " + c.Function.Name + " " + c.Function.Arguments)
}
func (r *recorder) ToolRows(c conversation.ToolCall, st conversation.Statement) {
	r.add(fmt.Sprintf("rows %s %s %d", c.Function.Name, st.Status, len(st.Rows)))
}
func (r *recorder) ToolFinished(o conversation.ToolOutcome) {
	r.add("result " + o.Call.Function.Name + " " + o.Content)
}

// sqlTool answers execute_sql with a fixed result shaped as the CLI's.
func sqlTool() modeltest.Tools {
	return modeltest.Tools{
		"execute_sql": func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ SQL string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			if strings.HasPrefix(a.SQL, "SELEC ") {
				return nil, errors.New("syntax error near SELEC")
			}
			return map[string]any{"status": "success", "row_count": 2, "columns": []string{"id", "name"},
				"rows": [][]any{{1, "alice"}, {2, nil}}}, nil
		},
	}
}

func newRunner(m conversation.Model, tools conversation.Tools) *conversation.Runner {
	clock := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	return &conversation.Runner{Model: m, Tools: tools, Now: func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}}
}

func newSession() *conversation.Session {
	return conversation.NewSession("demo", "sqlite", time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
}

func TestEmptyHistoryRequestIsSystemThenUser(t *testing.T) {
	m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("hello")}}
	_, err := newRunner(m, nil).Run(context.Background(), newSession(), conversation.Turn{System: "prompt", User: "hi"}, nil)
	require.NoError(t, err)
	reqs := m.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, []conversation.Message{
		{Role: conversation.RoleSystem, Content: "prompt"},
		{Role: conversation.RoleUser, Content: "hi"},
	}, reqs[0].Messages)
	assert.Nil(t, reqs[0].Tools)
}

func TestTurnRunsToolsAndRecordsBothLists(t *testing.T) {
	m := &modeltest.Model{Steps: []modeltest.Step{
		{Text: []string{"Let me ", "count."}, ToolCalls: []conversation.ToolCall{
			modeltest.CallOf("c1", "execute_sql", `{"sql":"SELECT 1"}`),
			modeltest.CallOf("c2", "execute_sql", `{"sql":"SELEC 2"}`),
		}},
		modeltest.Answer("There are two."),
	}}
	s := newSession()
	p := &recorder{}
	res, err := newRunner(m, sqlTool()).Run(context.Background(), s, conversation.Turn{System: "sys", User: "how many?"}, p)
	require.NoError(t, err)

	assert.Equal(t, "There are two.", res.Answer)
	assert.Equal(t, 2, res.ModelCalls)
	require.Len(t, res.Outcomes, 2)
	assert.NoError(t, res.Outcomes[0].Err)
	assert.EqualError(t, res.Outcomes[1].Err, "syntax error near SELEC")

	// The second request carries the first reply and both results, in order.
	reqs := m.Requests()
	require.Len(t, reqs, 2)
	second := unfenced(t, reqs[1].Messages)
	require.Len(t, second, 5)
	assert.Equal(t, "Let me count.", second[2].Content)
	assert.Equal(t, "c1", second[3].ToolCallID)
	assert.JSONEq(t, `{"status":"success","row_count":2,"columns":["id","name"],"rows":[[1,"alice"],[2,null]]}`, second[3].Content)
	assert.Equal(t, "c2", second[4].ToolCallID)
	assert.JSONEq(t, `{"status":"error","error":"syntax error near SELEC"}`, second[4].Content)
	assert.Equal(t, []string{"execute_sql"}, toolNames(reqs[1].Tools))

	// Progress heard the streamed text, each call with its SQL and each result.
	assert.Equal(t, []string{
		"text Let me ", "text count.",
		`call execute_sql {"sql":"SELECT 1"}`, `result execute_sql ` + second[3].Content, // the session's copy: not fenced
		`call execute_sql {"sql":"SELEC 2"}`, `result execute_sql ` + second[4].Content,
		"text There ", "text are ", "text two.",
	}, p.events)

	// Complete history: user, assistant with calls, two results, answer.
	require.Len(t, s.History, 5)
	assert.Equal(t, conversation.Message{Role: conversation.RoleAssistant, Content: "There are two."}, s.History[4])
	assert.Equal(t, "sys", s.SystemPrompt)
	require.Len(t, s.Legacy, 2)
	assert.Equal(t, "how many?", s.Legacy[0].Content)
	assert.Equal(t, "There are two.", s.Legacy[1].Content)
	assert.True(t, s.Legacy[1].Timestamp.After(s.Legacy[0].Timestamp))
	assert.Equal(t, s.Legacy[1].Timestamp, s.Updated)
}

func toolNames(specs []conversation.ToolSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

func TestToolReportsRowsOnceBeforeItsResult(t *testing.T) {
	m := &modeltest.Model{Steps: []modeltest.Step{
		modeltest.Call("c1", "execute_sql", `{"sql":"SELECT n FROM big"}`),
		modeltest.Answer("Many rows."),
	}}
	page := conversation.Statement{SQL: "SELECT n FROM big", Status: "running", RowCount: 3, Columns: []string{"n"},
		Rows: [][]any{{1}, {2}}, Truncated: true}
	tools := modeltest.Tools{"execute_sql": func(ctx context.Context, args json.RawMessage) (any, error) {
		conversation.ReportRows(ctx, page)
		conversation.ReportRows(ctx, page) // a second page of the same call is dropped
		return map[string]any{"status": "success", "row_count": 10}, nil
	}}
	p := &recorder{}
	_, err := newRunner(m, tools).Run(context.Background(), newSession(), conversation.Turn{System: "sys", User: "all of big"}, p)
	require.NoError(t, err)
	assert.Equal(t, []string{
		`call execute_sql {"sql":"SELECT n FROM big"}`,
		"rows execute_sql running 2",
		`result execute_sql {"row_count":10,"status":"success"}`,
		"text Many ", "text rows.",
	}, p.events)

	// Outside a turn's tool call, a report goes nowhere.
	conversation.ReportRows(context.Background(), page)
}

func TestToolArguments(t *testing.T) {
	tests := []struct {
		name, args string
		wantSQL    string // what the tool saw; "" when it must not run
		wantError  string // in the tool result the model reads
	}{
		{"object", `{"sql":"SELECT 1"}`, "SELECT 1", ""},
		{"object with spaces", ` { "sql" : "SELECT 1" } `, "SELECT 1", ""},
		{"string holding an object", `"{\"sql\":\"SELECT 2\"}"`, "SELECT 2", ""},
		{"string of a string", `"\"{\\\"sql\\\":\\\"SELECT 3\\\"}\""`, "SELECT 3", ""},
		{"empty means no arguments", ``, "", `"sql" is missing`},
		{"array", `["SELECT 1"]`, "", "want a JSON object, found an array"},
		{"number", `42`, "", "want a JSON object, found a number"},
		{"broken JSON", `{"sql":`, "", "not valid JSON"},
		{"string holding broken JSON", `"{\"sql\":"`, "", "not valid JSON"},
		{"string holding a number", `"42"`, "", "want a JSON object, found a number"},
		{"nested too deep", `"\"\\\"\\\\\\\"x\\\\\\\"\\\"\""`, "", "nested too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen string
			tools := modeltest.Tools{"execute_sql": func(ctx context.Context, args json.RawMessage) (any, error) {
				var a struct {
					SQL *string `json:"sql"`
				}
				require.NoError(t, json.Unmarshal(args, &a), "the tool gets an object")
				if a.SQL == nil {
					return nil, errors.New(`"sql" is missing`)
				}
				seen = *a.SQL
				return map[string]string{"status": "success"}, nil
			}}
			m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "execute_sql", tt.args), modeltest.Answer("ok")}}
			res, err := newRunner(m, tools).Run(context.Background(), newSession(), conversation.Turn{User: "q"}, nil)
			require.NoError(t, err, "a bad argument is the model's problem, not the turn's")
			assert.Equal(t, tt.wantSQL, seen)
			content := res.Outcomes[0].Content
			if tt.wantError == "" {
				assert.JSONEq(t, `{"status":"success"}`, content)
				return
			}
			var r struct{ Status, Error string }
			require.NoError(t, json.Unmarshal([]byte(content), &r))
			assert.Equal(t, "error", r.Status)
			assert.Contains(t, r.Error, tt.wantError)
		})
	}
}

func TestUnknownToolIsAResultTheModelReads(t *testing.T) {
	m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "drop_everything", `{}`), modeltest.Answer("sorry")}}
	res, err := newRunner(m, sqlTool()).Run(context.Background(), newSession(), conversation.Turn{User: "q"}, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"status":"error","error":"there is no tool \"drop_everything\"; the tools are: execute_sql"}`, res.Outcomes[0].Content)
}

func TestResultThatCannotBeEncodedIsAnError(t *testing.T) {
	tools := modeltest.Tools{"f": func(context.Context, json.RawMessage) (any, error) { return func() {}, nil }}
	m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "f", `{}`), modeltest.Answer("done")}}
	res, err := newRunner(m, tools).Run(context.Background(), newSession(), conversation.Turn{User: "q"}, nil)
	require.NoError(t, err)
	assert.Contains(t, res.Outcomes[0].Content, `"status":"error"`)
	assert.Contains(t, res.Outcomes[0].Content, "could not be encoded")
}

func TestModelCallIDsAreMadeUsable(t *testing.T) {
	m := &modeltest.Model{Steps: []modeltest.Step{
		{ToolCalls: []conversation.ToolCall{
			{Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}},
			{ID: "dup", Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}},
			{ID: "dup", Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}},
		}},
		modeltest.Answer("ok"),
	}}
	s := newSession()
	_, err := newRunner(m, sqlTool()).Run(context.Background(), s, conversation.Turn{User: "q"}, nil)
	require.NoError(t, err)
	calls := s.History[1].ToolCalls
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"call_aiq_1", "dup", "call_aiq_3"}, []string{calls[0].ID, calls[1].ID, calls[2].ID})
	for _, c := range calls {
		assert.Equal(t, "function", c.Type)
	}
	assert.Equal(t, []string{"call_aiq_1", "dup", "call_aiq_3"},
		[]string{s.History[2].ToolCallID, s.History[3].ToolCallID, s.History[4].ToolCallID})
}

// TestCallIDsUniqueInSession: a model that leaves ids out, or numbers its
// calls from 1 in every turn, still gets an id per call that no other call
// of the session has, as result/export finds a call by it; each result
// names its call's new id.
func TestCallIDsUniqueInSession(t *testing.T) {
	call := func(id string) modeltest.Step {
		return modeltest.Step{ToolCalls: []conversation.ToolCall{
			{ID: id, Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}},
		}}
	}
	m := &modeltest.Model{Steps: []modeltest.Step{
		call(""), modeltest.Answer("a"),
		call(""), call("call_0"), modeltest.Answer("b"),
		call("call_0"), call("call_aiq_1"), modeltest.Answer("c"),
	}}
	s := newSession()
	r := newRunner(m, sqlTool())
	for _, q := range []string{"q1", "q2", "q3"} {
		_, err := r.Run(context.Background(), s, conversation.Turn{User: q}, nil)
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	var answered []string
	for _, msg := range s.History {
		for _, c := range msg.ToolCalls {
			assert.False(t, seen[c.ID], "the id %q is used twice", c.ID)
			seen[c.ID] = true
		}
		if msg.Role == conversation.RoleTool {
			answered = append(answered, msg.ToolCallID)
		}
	}
	assert.Len(t, seen, 5)
	for _, id := range answered {
		assert.True(t, seen[id], "a result answers %q, which no call has", id)
	}
	assert.Len(t, answered, 5)
}

// failing turns must leave the session exactly as it was.
func TestFailedTurnLeavesSessionUnchanged(t *testing.T) {
	modelDown := errors.New("502 bad gateway")
	tests := []struct {
		name    string
		steps   []modeltest.Step
		cancel  bool
		wantErr error
		wantMsg string
	}{
		{"model error at once", []modeltest.Step{{Err: modelDown}}, false, modelDown, "model request 1: 502 bad gateway"},
		{"model error after tools", []modeltest.Step{modeltest.Call("c", "execute_sql", `{"sql":"SELECT 1"}`), {Err: modelDown}}, false, modelDown, "model request 2"},
		{"cancelled while the model streams", []modeltest.Step{{Hold: true}}, true, context.Canceled, "context canceled"},
		{"call limit", loopingSteps(10), false, conversation.ErrTooManyModelCalls, "after 10 requests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession()
			r := newRunner(&modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("first answer")}}, sqlTool())
			_, err := r.Run(context.Background(), s, conversation.Turn{System: "sys", User: "first"}, nil)
			require.NoError(t, err)
			before := cloneSession(t, s)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			r.Model = &modeltest.Model{Steps: tt.steps}
			_, err = r.Run(ctx, s, conversation.Turn{System: "new sys", User: "second"}, nil)
			require.ErrorIs(t, err, tt.wantErr)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Equal(t, before, s)
		})
	}
}

func loopingSteps(n int) []modeltest.Step {
	steps := make([]modeltest.Step, n+1)
	for i := range steps {
		steps[i] = modeltest.Call("c", "execute_sql", `{"sql":"SELECT 1"}`)
	}
	return steps
}

func cloneSession(t *testing.T, s *conversation.Session) *conversation.Session {
	t.Helper()
	c := *s
	c.History = append([]conversation.Message(nil), s.History...)
	c.Legacy = append(c.Legacy[:0:0], s.Legacy...)
	return &c
}

func TestCallLimitIsConfigurable(t *testing.T) {
	m := &modeltest.Model{Steps: loopingSteps(5)}
	r := newRunner(m, sqlTool())
	r.MaxModelCalls = 3
	_, err := r.Run(context.Background(), newSession(), conversation.Turn{User: "q"}, nil)
	require.ErrorIs(t, err, conversation.ErrTooManyModelCalls)
	assert.Len(t, m.Requests(), 3)
}

func TestEmptyQuestionIsRefused(t *testing.T) {
	m := &modeltest.Model{}
	_, err := newRunner(m, nil).Run(context.Background(), newSession(), conversation.Turn{User: "  \n"}, nil)
	require.EqualError(t, err, "run turn: the question is empty")
	assert.Empty(t, m.Requests())
}

func TestLegacyAnswerIsNeverEmpty(t *testing.T) {
	tests := []struct {
		name  string
		steps []modeltest.Step
		want  string
	}{
		{"final answer", []modeltest.Step{modeltest.Answer("Three.")}, "Three."},
		{"summary of the last result", []modeltest.Step{modeltest.Call("c", "execute_sql", `{"sql":"SELECT 1"}`), {}},
			"Query executed successfully. Returned 2 row(s) with columns: [id, name]. Sample data: [1, alice], [2, NULL]"},
		{"summary of a failure", []modeltest.Step{modeltest.Call("c", "execute_sql", `{"sql":"SELEC 1"}`), {Text: []string{" "}}},
			"The query failed: syntax error near SELEC"},
		{"no answer at all", []modeltest.Step{{}}, "(The model gave no answer.)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession()
			_, err := newRunner(&modeltest.Model{Steps: tt.steps}, sqlTool()).Run(context.Background(), s, conversation.Turn{User: "q"}, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Legacy[1].Content)
		})
	}
}

func TestFollowUpsSeeEarlierTurnsUpToTheLimit(t *testing.T) {
	m := &modeltest.Model{Respond: func(req conversation.Request) modeltest.Step {
		return modeltest.Answer("answer to " + req.Messages[len(req.Messages)-1].Content)
	}}
	r := newRunner(m, nil)
	r.HistoryLimit = 3
	s := newSession()
	for _, q := range []string{"q1", "q2", "q3", "q4", "q5"} {
		_, err := r.Run(context.Background(), s, conversation.Turn{System: "sys", User: q}, nil)
		require.NoError(t, err)
	}
	reqs := m.Requests()
	last := reqs[len(reqs)-1].Messages
	// system, three kept turns of two messages, then the new question:
	// q1 was trimmed after turn 4, and turn 5's own request holds q2..q4.
	var users []string
	for _, msg := range last {
		if msg.Role == conversation.RoleUser {
			users = append(users, msg.Content)
		}
	}
	assert.Equal(t, []string{"q2", "q3", "q4", "q5"}, users)
	assert.Equal(t, 3, s.Turns())
	assert.Equal(t, "q3", s.History[0].Content)
	assert.Equal(t, "q3", s.Legacy[0].Content)
}
