package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestPromptSchemaToolCards: the schema tools' cards have a title that
// says what they look at, and end with the tool's one-line summary.
func TestPromptSchemaToolCards(t *testing.T) {
	f := newFixture(t,
		llmtest.Step{ToolCalls: []llmtest.Call{
			{ID: "d", Name: "describe_table", Arguments: `{"table":"orders"}`},
			{ID: "p", Name: "profile_column", Arguments: `{"table":"orders","column":"status"}`},
			{ID: "s", Name: "search_schema", Arguments: `{"query":"status"}`},
		}},
		llmtest.Step{Text: "Read them."},
	)
	id := f.newSession()
	_, err := f.prompt(id, sdk.TextBlock("what is in orders?"))
	require.NoError(t, err)
	updates := f.client.of(id)
	titles := map[string]string{}
	for _, u := range updates {
		if u.ToolCall != nil {
			titles[string(u.ToolCall.ToolCallId)] = u.ToolCall.Title
		}
	}
	assert.Equal(t, "Describe the table orders", titles["d"])
	assert.Equal(t, "Profile the column orders.status", titles["p"])
	assert.Equal(t, "Search the schema for status", titles["s"])
	assert.Equal(t, "orders: 2 columns, PK id, ~4 rows", toolText(toolUpdate(updates, "d").Content))
	assert.Equal(t, "orders.status: 3 distinct, 0% null, most common 'delivered' (2)", toolText(toolUpdate(updates, "p").Content))
	assert.Equal(t, `search "status": 1 table (orders)`, toolText(toolUpdate(updates, "s").Content))
}
