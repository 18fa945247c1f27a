package acp_test

import (
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestToolCallIDsUnique: a model that gives every turn's call the same id
// still shows each call with an id of its own (the turn gives the second
// call a new one), across turns and after the session is loaded again and
// replayed; the first turn names the session.
func TestToolCallIDsUnique(t *testing.T) {
	sql := "SELECT o.id FROM orders o JOIN orders p ON p.id = o.id WHERE o.id = 1"
	f := newFixture(t, sqlCall("call_1", sql), llmtest.Step{Text: "One."}, sqlCall("call_1", sql), llmtest.Step{Text: "Still one."})
	id := f.newSession()
	f.say(id, "Which order is first?\nAnd more lines of the question.")
	f.say(id, "again")
	var ids []string
	var titles []string
	for _, u := range f.client.of(id) {
		if u.ToolCall != nil {
			ids = append(ids, string(u.ToolCall.ToolCallId))
			assert.Equal(t, "SELECT from orders", u.ToolCall.Title)
		}
		if u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Title != nil {
			titles = append(titles, *u.SessionInfoUpdate.Title)
		}
	}
	assert.Equal(t, []string{"call_1", "call_aiq_2"}, ids)
	assert.Equal(t, []string{"Which order is first?"}, titles, "one title, after the first turn")

	g := newFixture(t)
	g.initialize()
	_, err := g.conn.LoadSession(g.ctx(), sdk.LoadSessionRequest{SessionId: id, Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	var replayed []string
	for _, u := range g.client.of(id) {
		if u.ToolCall != nil {
			replayed = append(replayed, string(u.ToolCall.ToolCallId))
		}
	}
	assert.Equal(t, []string{"call_1", "call_aiq_2"}, replayed, "the replay keeps them apart")
}

// TestPromptRightAfterCancel: a prompt sent at once after session/cancel
// waits for the cancelled turn and runs; one sent while a turn runs, with
// no cancel, is still refused.
func TestPromptRightAfterCancel(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "never", Hold: true}, llmtest.Step{Text: "After."}, llmtest.Step{Text: "held", Hold: true})
	id := f.newSession()
	held := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := f.prompt(id, sdk.TextBlock("a question the model holds"))
		assert.NoError(t, err)
		held <- res
	}()
	require.Eventually(t, func() bool { return len(f.model.Requests()) == 1 }, waitTimeout, time.Millisecond)
	require.NoError(t, f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: id}))
	res, err := f.prompt(id, sdk.TextBlock("the next question"))
	require.NoError(t, err, "a prompt right after session/cancel is queued, not refused")
	assert.Equal(t, sdk.StopReasonEndTurn, res.StopReason)
	assert.Equal(t, sdk.StopReasonCancelled, (<-held).StopReason)
	assert.Contains(t, text(f.client.take()), "After.")

	go func() {
		f.prompt(id, sdk.TextBlock("held again"))
	}()
	require.Eventually(t, func() bool { return len(f.model.Requests()) == 3 }, waitTimeout, time.Millisecond)
	_, err = f.prompt(id, sdk.TextBlock("too soon"))
	require.Error(t, err, "a second prompt without a cancel is refused")
	assert.Contains(t, err.Error(), "already running")
	require.NoError(t, f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: id}))
}
