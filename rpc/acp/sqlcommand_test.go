package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// TestSQLCommand: /sql runs a statement without the model (the scripted
// model has no step), shown as a tool call with its table; a write asks
// session/request_permission first; each is a turn of the session file.
func TestSQLCommand(t *testing.T) {
	f := newFixture(t)
	f.initialize()
	id := f.newSession()
	f.client.take()

	f.say(id, "/sql\nSELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status")
	updates := f.client.take()
	var call *sdk.SessionUpdateToolCall
	var done *sdk.SessionToolCallUpdate
	for _, u := range updates {
		if u.ToolCall != nil {
			call = u.ToolCall
		}
		if u.ToolCallUpdate != nil {
			done = u.ToolCallUpdate
		}
	}
	require.NotNil(t, call, "a tool call for the statement")
	require.NotNil(t, done, "its result")
	assert.EqualValues(t, "completed", *done.Status)
	assert.Contains(t, toolText(done.Content), "| delivered | 2 |")
	assert.Equal(t, "SELECT from orders", call.Title)
	assert.Equal(t, "The statement returned 3 rows.", text(updates), "the outcome is a message too, for clients that show only those")

	f.client.choose("reject_once")
	f.say(id, "/sql DELETE FROM orders")
	assert.Len(t, f.client.permissions(), 1, "a write asks first")
	assert.Equal(t, int64(4), f.countOrders(), "a rejected write changes nothing")
	f.client.take()

	f.say(id, "/sql")
	assert.Contains(t, text(f.client.take()), "Give the statement to run after /sql")

	require.NoError(t, sessiontest.CheckCLILoadRules(readFile(t, string(id))))
	hist, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Len(t, hist.Turns, 4, "two statements, two turns of two messages")
}
