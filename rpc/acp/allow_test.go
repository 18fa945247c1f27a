package acp_test

import (
	"encoding/json"
	"fmt"
	"regexp"
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
	assert.Equal(t, []string{"Reject", "Allow once", "Allow UPDATE on orders, up to 10 rows at a time, for this conversation", "Reject always"}, names)
	assert.Contains(t, toolText(asked[0].ToolCall.Content), "\"Always\" covers only this: Allow UPDATE on orders, up to 10 rows at a time, for this conversation.")

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
	assert.Contains(t, got, "- `a1`: Allow UPDATE on orders, up to 10 rows at a time, for this conversation")
	f.say(id, "/allowances revoke a1")
	got = text(f.client.take())
	assert.Contains(t, got, "Revoked a1. No \"Allow always\" is in force")
	_, err := f.prompt(id, sdk.TextBlock("/allowances revoke a1"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no allowance \"a1\"`)

	f.say(id, "change order 3")
	assert.Len(t, f.client.permissions(), 3, "a revoked allowance still covered its shape")
}

// TestMaskedPermission: the permission request of a write that names its
// rows by a masked token says, in its text only, what the token stands
// for; the model reads no masked value.
func TestMaskedPermission(t *testing.T) {
	token := regexp.MustCompile(`<masked:status:([0-9a-f]{12,})>`)
	f := newFixture(t,
		sqlCall("c1", "SELECT id, status FROM orders WHERE id = 3"),
		llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
			tok := token.FindString(req.Messages[len(req.Messages)-1].Content)
			return sqlCall("c2", "DELETE FROM orders WHERE status = '"+tok+"'")
		}},
		llmtest.Step{Text: "Not deleted."},
	)
	f.mask = []string{"orders.status"}
	id := f.newSession()
	f.client.choose("reject_once")
	f.say(id, "delete the orders of order 3's status")
	asked := f.client.permissions()
	require.Len(t, asked, 1)
	body := toolText(asked[0].ToolCall.Content)
	m := token.FindStringSubmatch(body)
	require.NotNil(t, m, "the permission text shows no token: %s", body)
	assert.Contains(t, body, "<masked:status:"+m[1][:4]+"…> is pending")
	input, _ := json.Marshal(asked[0].ToolCall.RawInput)
	assert.NotContains(t, string(input), "pending", "the tool call's input holds the value")
	for _, r := range f.model.Requests() {
		assert.NotContains(t, string(r.Body), "pending", "request %d to the model holds the masked value", r.N)
	}
}
