package acp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestScopedAllowAlways: the "Allow always" option is named by what it
// covers and is offered only for a statement with a scope; after it, the
// same shape runs without asking, a DELETE without WHERE asks with no
// "always"; /allowances lists and revokes.
func TestScopedAllowAlways(t *testing.T) {
	f := newFixture(t,
		sqlCall("c1", "UPDATE orders SET status = 'paid' WHERE id = 1"), llmtest.Step{Text: "Paid."},
		sqlCall("c2", "UPDATE orders SET status = 'paid' WHERE id = 2"), llmtest.Step{Text: "Paid too."},
		sqlCall("c3", "DELETE FROM orders"), llmtest.Step{Text: "Not deleted."},
		sqlCall("c4", "UPDATE orders SET status = 'x' WHERE id = 3"), llmtest.Step{Text: "Not changed."},
	)
	id := f.newSession()
	f.client.choose("allow_always")
	f.say(id, "mark order 1 paid")
	asked := f.client.permissions()
	require.Len(t, asked, 1)
	var names []string
	for _, o := range asked[0].Options {
		names = append(names, o.Name)
	}
	assert.Equal(t, []string{"Reject", "Allow once", "Allow UPDATE on orders for this conversation", "Reject always"}, names)
	assert.Contains(t, toolText(asked[0].ToolCall.Content), "\"Always\" covers only this: Allow UPDATE on orders for this conversation.")

	f.say(id, "and order 2")
	assert.Len(t, f.client.permissions(), 1, "the same shape asked again")
	assert.Contains(t, f.lastToolMessage(3), "success")

	f.client.choose("reject_once")
	before := f.countOrders()
	f.say(id, "delete them all")
	asked = f.client.permissions()
	require.Len(t, asked, 2, "a DELETE without WHERE did not ask")
	var kinds []sdk.PermissionOptionKind
	for _, o := range asked[1].Options {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []sdk.PermissionOptionKind{"reject_once", "allow_once", "reject_always"}, kinds, "no always for a DELETE without WHERE")
	assert.Contains(t, toolText(asked[1].ToolCall.Content), "It asks every time")
	// The dry run's count, in the text and in the tool call's input.
	assert.Contains(t, toolText(asked[1].ToolCall.Content), fmt.Sprintf("This DELETE would remove %d rows", before))
	input, _ := json.Marshal(asked[1].ToolCall.RawInput)
	assert.JSONEq(t, fmt.Sprintf(`{"sql":"DELETE FROM orders","dryRun":"ok","affectedRows":%d}`, before), string(input))
	assert.Equal(t, before, f.countOrders())
	f.client.take()

	f.say(id, "/allowances")
	got := text(f.client.take())
	assert.Contains(t, got, "- `a1`: Allow UPDATE on orders for this conversation")
	f.say(id, "/allowances revoke a1")
	got = text(f.client.take())
	assert.Contains(t, got, "Revoked a1. No \"Allow always\" is in force")
	_, err := f.prompt(id, sdk.TextBlock("/allowances revoke a1"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no allowance \"a1\"`)

	f.say(id, "change order 3")
	assert.Len(t, f.client.permissions(), 3, "a revoked allowance still covered its shape")
}
