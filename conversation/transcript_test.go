package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

func call(id, name, args string) conversation.ToolCall {
	return conversation.ToolCall{ID: id, Type: "function", Function: conversation.FunctionCall{Name: name, Arguments: args}}
}

func TestTranscript(t *testing.T) {
	history := []conversation.Message{
		{Role: conversation.RoleAssistant, Content: "left over from a trimmed file"},
		{Role: conversation.RoleUser, Content: "how many?"},
		{Role: conversation.RoleAssistant, Content: "Let me look.", ToolCalls: []conversation.ToolCall{
			call("c1", "execute_sql", `{"sql":"SELECT count(*) AS n FROM t"}`),
			call("c2", "execute_sql", `"{\"sql\":\"DELETE FROM t\"}"`),
		}},
		{Role: conversation.RoleTool, ToolCallID: "c1", Content: `{"status":"success","row_count":5,"columns":["n"],"rows":[[5]],"truncated":false}`},
		{Role: conversation.RoleTool, ToolCallID: "c2", Content: `{"status":"rejected","error":"not run: the user declined"}`},
		{Role: conversation.RoleAssistant, Content: "Five."},
		{Role: conversation.RoleUser, Content: "tables?"},
		{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c3", "list_tables", "")}},
		{Role: conversation.RoleTool, ToolCallID: "c3", Content: `{"tables":["t"]}`},
		{Role: conversation.RoleAssistant, Content: "Just t."},
	}
	turns := conversation.Transcript(history)
	require.Len(t, turns, 3)
	assert.Equal(t, "", turns[0].User)
	assert.Equal(t, "left over from a trimmed file", turns[0].Steps[0].Text)

	steps := turns[1].Steps
	assert.Equal(t, "how many?", turns[1].User)
	require.Len(t, steps, 4)
	assert.Equal(t, "Let me look.", steps[0].Text)
	c1 := steps[1].Call
	assert.Equal(t, "SELECT count(*) AS n FROM t", c1.SQL)
	assert.False(t, c1.Failed)
	assert.Equal(t, &conversation.Statement{SQL: c1.SQL, Status: "success", RowCount: 5, Columns: []string{"n"},
		Rows: [][]any{{float64(5)}}, Truncated: true}, c1.Statement, "five rows, one kept: truncated")
	assert.Contains(t, c1.Summary, "Returned 5 row(s)")
	c2 := steps[2].Call
	assert.Equal(t, "DELETE FROM t", c2.SQL, "arguments wrapped in a string are read")
	assert.True(t, c2.Failed)
	assert.Equal(t, "not run: the user declined", c2.Statement.Error)
	assert.Equal(t, "Five.", steps[3].Text)

	c3 := turns[2].Steps[0].Call
	assert.Equal(t, "list_tables", c3.Tool)
	assert.Nil(t, c3.Statement)
	assert.False(t, c3.Failed)
	assert.JSONEq(t, `{}`, string(c3.Arguments))
	assert.Equal(t, `{"tables":["t"]}`, c3.Result)
}

// TestTranscriptCLIFiles: every call of a file the CLI wrote gets its
// result.
func TestTranscriptCLIFiles(t *testing.T) {
	for name, data := range sessiontest.CLIFiles() {
		f, _, err := sessionio.Decode(data)
		require.NoError(t, err, name)
		s, _ := conversation.FromFile(f)
		for _, turn := range conversation.Transcript(s.History) {
			for _, step := range turn.Steps {
				if step.Call != nil {
					assert.NotEmpty(t, step.Call.Result, "%s: call %s has no result", name, step.Call.ID)
					assert.NotEmpty(t, step.Call.Summary, name)
				}
			}
		}
	}
}

func TestStatementRisk(t *testing.T) {
	cases := []struct{ sql, dbType, want string }{
		{"SELECT * FROM t", "sqlite", conversation.RiskRead},
		{"WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "postgresql", conversation.RiskWrite},
		{"INSERT INTO t VALUES (1)", "mysql", conversation.RiskWrite},
		{"DROP TABLE t", "postgresql", conversation.RiskDDL},
		{"create index i on t (a)", "sqlite", conversation.RiskDDL},
		{"SELECT 1; SELECT 2", "sqlite", conversation.RiskWrite},
		{"SELECT 1", "", conversation.RiskWrite},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, conversation.StatementRisk(c.sql, c.dbType), c.sql)
	}
}

func TestKindOf(t *testing.T) {
	cases := []struct {
		err  error
		want conversation.ErrorKind
	}{
		{fmt.Errorf("ask: %w", conversation.ErrUnknownSession), conversation.KindUnknownSession},
		{fmt.Errorf("load: %w", sessionio.ErrTooLarge), conversation.KindSessionTooLarge},
		{fmt.Errorf("load: %w", sessionio.ErrInvalid), conversation.KindInvalidSession},
		{conversation.ErrSourceUnavailable, conversation.KindSourceUnavailable},
		{conversation.ErrNoModel, conversation.KindNoModel},
		{conversation.ErrBusy, conversation.KindBusy},
		{conversation.ErrInvalidRequest, conversation.KindInvalidRequest},
		{fmt.Errorf("run turn: %w", &conversation.ModelError{Request: 1, Err: errors.New("401")}), conversation.KindModel},
		{context.Canceled, conversation.KindInternal},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, conversation.KindOf(c.err), c.err.Error())
	}
}
