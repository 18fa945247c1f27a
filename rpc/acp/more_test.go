package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/acp"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// TestSourcePickers: the modes and the config option both move the
// session to another source, and the client hears of it.
func TestSourcePickers(t *testing.T) {
	f := newFixture(t)
	id := f.newSession()
	_, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "other"})
	require.NoError(t, err)
	info, err := f.ws.Info(f.ctx(), "s1")
	require.NoError(t, err)
	assert.Equal(t, "other", info.Source)

	res, err := f.conn.SetSessionConfigOption(f.ctx(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: "source", Value: "#none"}})
	require.NoError(t, err)
	require.Len(t, res.ConfigOptions, 1)
	assert.EqualValues(t, "#none", res.ConfigOptions[0].Select.CurrentValue)
	info, err = f.ws.Info(f.ctx(), "s1")
	require.NoError(t, err)
	assert.Equal(t, "", info.Source, "no database")

	var modes []sdk.SessionModeId
	for _, u := range f.client.of(id) {
		if u.CurrentModeUpdate != nil {
			modes = append(modes, u.CurrentModeUpdate.CurrentModeId)
		}
	}
	assert.Equal(t, []sdk.SessionModeId{"other", "#none"}, modes)

	_, err = f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "nowhere"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `there is no source \"nowhere\"`)
	_, err = f.conn.SetSessionConfigOption(f.ctx(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: "colour", Value: "x"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the options are \"source\"`)
}

// TestChart: a chart is a Markdown table of its data with its title,
// never HTML.
func TestChart(t *testing.T) {
	f := newFixture(t,
		sqlCall("call_1", "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"),
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_2", Name: "render_chart",
			Arguments: `{"chart_type":"bar","x":"status","y":"n","title":"Orders <b>by</b> status"}`}}},
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_3", Name: "render_chart", Arguments: `{"chart_type":"radar","x":"status","y":"n"}`}}},
		llmtest.Step{Text: "Drawn."},
	)
	id := f.newSession()
	f.say(id, "chart the orders")
	updates := f.client.of(id)
	assert.Equal(t, "Chart: Orders <b>by</b> status", toolCall(updates, "call_2").Title)
	assert.Equal(t, sdk.ToolKindOther, toolCall(updates, "call_2").Kind)
	got := toolText(toolUpdate(updates, "call_2").Content)
	assert.Equal(t, "**Orders \\<b\\>by\\</b\\> status** (bar chart)\n\n| status | n |\n| --- | ---: |\n| delivered | 2 |\n| pending | 1 |\n| shipped | 1 |\n", got)
	bad := toolUpdate(updates, "call_3")
	assert.Equal(t, sdk.ToolCallStatusFailed, *bad.Status, "a tool's error is a failed call")
	assert.Contains(t, toolText(bad.Content), "radar")
}

// TestResume: -s FILE is the session the first session/new continues.
func TestResume(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "Continued."})
	path := filepath.Join(t.TempDir(), "resumed.json")
	require.NoError(t, os.WriteFile(path, sessiontest.CLIFiles()["cli-db-mode.session.json"], 0o600))
	require.NoError(t, f.stop())
	f.start(acp.Options{Name: "aiq-rpc", Version: "test", Home: f.home, Resume: path})
	id := f.newSession()
	assert.EqualValues(t, path, id)
	f.say(id, "/source db")
	f.say(id, "go on")
	assert.Contains(t, string(readFile(t, path)), "Continued.")
	second, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(second.SessionId), f.home.SessionsDir()), "the second session is a new one")
}

// TestListAndClose: session/list gives the saved sessions, newest first,
// with their first question; session/close saves and forgets a session.
func TestListAndClose(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "One."}, llmtest.Step{Text: "Two."})
	first := f.newSession()
	f.say(first, "the first question")
	second, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	f.say(second.SessionId, "the second question")
	empty, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)

	list, err := f.conn.ListSessions(f.ctx(), sdk.ListSessionsRequest{Cwd: sdk.Ptr("/work")})
	require.NoError(t, err)
	var titles []string
	for _, s := range list.Sessions {
		assert.Equal(t, "/work", s.Cwd)
		if s.Title != nil {
			titles = append(titles, string(s.SessionId)+" "+*s.Title)
		}
	}
	assert.ElementsMatch(t, []string{string(first) + " the first question", string(second.SessionId) + " the second question"}, titles)

	_, err = f.conn.CloseSession(f.ctx(), sdk.CloseSessionRequest{SessionId: empty.SessionId})
	require.NoError(t, err)
	assert.NoFileExists(t, string(empty.SessionId), "a closed session that was never used left its file")
	_, err = f.conn.CloseSession(f.ctx(), sdk.CloseSessionRequest{SessionId: first})
	require.NoError(t, err)
	assert.FileExists(t, string(first))
	_, err = f.prompt(first, sdk.TextBlock("still there?"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no open session has this id")
	_, err = f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: first, Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err, "a closed session loads again")
}

// TestCancelRunningSQL: session/cancel stops a statement that would
// never end on its own.
func TestCancelRunningSQL(t *testing.T) {
	f := newFixture(t, sqlCall("call_1", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"))
	id := f.newSession()
	result := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := f.prompt(id, sdk.TextBlock("count forever"))
		assert.NoError(t, err)
		result <- res
	}()
	require.Eventually(t, func() bool {
		for _, u := range f.client.of(id) {
			if u.ToolCall != nil {
				return true
			}
		}
		return false
	}, waitTimeout, time.Millisecond, "the statement never started")
	require.NoError(t, f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: id}))
	select {
	case res := <-result:
		assert.Equal(t, sdk.StopReasonCancelled, res.StopReason)
	case <-time.After(waitTimeout):
		t.Fatal("the statement was not cancelled")
	}
	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Empty(t, h.Turns)
}
