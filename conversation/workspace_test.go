package conversation_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
)

// box is a toolbox whose execute_sql echoes the statement.
type box struct{ ran *[]string }

func (b box) Specs() []conversation.ToolSpec {
	return []conversation.ToolSpec{{Name: "execute_sql", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (b box) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	var a struct{ SQL string }
	json.Unmarshal(args, &a)
	*b.ran = append(*b.ran, a.SQL)
	st := conversation.Statement{SQL: a.SQL, Status: "success", RowCount: 1, Columns: []string{"n"}, Rows: [][]any{{1}}}
	return conversation.SQLResult{Statement: st, ForModel: map[string]any{"status": "success", "row_count": 1, "columns": []string{"n"}, "rows": [][]any{{1}}}}, nil
}

func (b box) Describe(ctx context.Context) string {
	return "The database is SQLite 3 with a table t(n integer)."
}

func newWorkspace(t *testing.T, model conversation.Model, ran *[]string) (*conversation.Workspace, sessionio.Home) {
	home := sessionio.Home{Dir: t.TempDir()}
	cfg := conversation.Config{
		Home:          home,
		Sources:       func() ([]sessionio.Source, error) { return []sessionio.Source{{Name: "db", Type: "sqlite"}}, nil },
		DefaultSource: "db",
		OpenToolbox: func(ctx context.Context, src sessionio.Source, confirm conversation.Confirmer) (conversation.Toolbox, error) {
			return box{ran: ran}, nil
		},
	}
	if model != nil {
		cfg.Model = func() (conversation.Model, error) { return model, nil }
	}
	return conversation.NewWorkspace(cfg), home
}

func TestAskWithoutModelRunsPlainSQL(t *testing.T) {
	var ran []string
	ws, _ := newWorkspace(t, nil, &ran)
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	var events []conversation.Event
	ans, err := ws.Ask(ctx, id, conversation.Question{Selection: &conversation.Selection{Text: "SELECT count(*) AS n FROM t;", LanguageID: "sql"}}, nil, func(e conversation.Event) { events = append(events, e) })
	require.NoError(t, err)
	assert.Equal(t, []string{"SELECT count(*) AS n FROM t;"}, ran)
	require.Len(t, ans.Statements, 1)
	assert.Empty(t, ans.Answer, "the statement's outcome is the answer: no summary under the table")
	assert.Equal(t, conversation.EventStatus, events[0].Kind)
	for _, e := range events {
		assert.NotEqual(t, conversation.EventText, e.Kind, "no text to show: %+v", e)
	}
	h, err := ws.History(ctx, id, false)
	require.NoError(t, err)
	require.Len(t, h.Turns, 2, "the direct statement is a turn like any other")
	assert.Contains(t, h.Turns[1].Content, "Returned 1 row(s)", "the saved answer is the CLI's summary")

	for _, q := range []string{"how many rows are in t?", "SELECT 1; SELECT 2", "selection of prose"} {
		_, err = ws.Ask(ctx, id, conversation.Question{Query: q}, nil, nil)
		assert.ErrorIs(t, err, conversation.ErrNoModel, q)
		assert.Contains(t, err.Error(), "AIQ_LLM_URL")
	}
}

func TestAskPrompt(t *testing.T) {
	var ran []string
	model := &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("fine")}}
	ws, home := newWorkspace(t, model, &ran)
	skill := filepath.Join(home.SkillsDir(), "revenue", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o700))
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: revenue\ndescription: computing revenue\n---\nUse unit_price.\n"), 0o600))
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "What was the revenue last week?"}, nil, nil)
	require.NoError(t, err)
	system := model.Requests()[0].Messages[0].Content
	assert.Contains(t, system, "SQLite 3 with a table t(n integer)")
	assert.Contains(t, system, "one statement per execute_sql call")
	assert.Contains(t, system, "Use unit_price.", "the matching skill")
}

func TestSelectionFence(t *testing.T) {
	var ran []string
	model := &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("a"), modeltest.Answer("b")}}
	ws, _ := newWorkspace(t, model, &ran)
	ctx := context.Background()
	id, _ := ws.Default(ctx)
	_, err := ws.Ask(ctx, id, conversation.Question{Query: "explain", Selection: &conversation.Selection{Text: "x = ```\ny\n```\n", LanguageID: "markdown"}}, nil, nil)
	require.NoError(t, err)
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "  ", Selection: &conversation.Selection{Text: "why is the sky blue?"}}, nil, nil)
	require.NoError(t, err)
	reqs := model.Requests()
	assert.Equal(t, "explain\n\n````markdown\nx = ```\ny\n```\n````", last(reqs[0].Messages).Content, "the fence outgrows the selection's")
	assert.Equal(t, "why is the sky blue?", last(reqs[1].Messages).Content, "a selection alone is the question")
}

func last(m []conversation.Message) conversation.Message { return m[len(m)-1] }

func TestListSessions(t *testing.T) {
	dir := t.TempDir()
	list, err := conversation.ListSessions(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Empty(t, list)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o600))
	s := conversation.NewSession("db", "sqlite", time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: strings.Repeat("q", 300), Timestamp: s.Created})
	data, _, err := s.Encode()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.json"), data, 0o600))
	list, err = conversation.ListSessions(dir)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.NotEmpty(t, list[0].Error, "the broken file is newer by mtime")
	assert.Equal(t, "db", list[1].Source)
	assert.Less(t, len(list[1].FirstQuestion), 300)
}

// TestListMarksLatest: the newest readable session of each source is
// marked, and only it.
func TestListMarksLatest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, source string, day int) {
		s := conversation.NewSession(source, "sqlite", time.Date(2026, 11, day, 10, 0, 0, 0, time.UTC))
		data, _, err := s.Encode()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	write("db-old.json", "db", 1)
	write("db-new.json", "db", 3)
	write("shop.json", "shop", 2)
	write("none.json", "", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o600))
	list, err := conversation.ListSessions(dir)
	require.NoError(t, err)
	latest := map[string]bool{}
	for _, l := range list {
		latest[filepath.Base(l.Path)] = l.Latest
	}
	assert.Equal(t, map[string]bool{"db-old.json": false, "db-new.json": true, "shop.json": true, "none.json": true, "broken.json": false}, latest)
}
