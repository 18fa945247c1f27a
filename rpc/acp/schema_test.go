package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestPromptSchemaToolCards: the schema tools' cards have a title that
// says what they look at, and start with the tool's one-line summary,
// before what the tool returned.
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
	for id, want := range map[string]string{
		"d": "orders: 2 columns, PK id, ~4 rows",
		"p": "orders.status: 3 distinct, 0% null, most common 'delivered' (2)",
		"s": `search "status": 1 table (orders)`,
	} {
		text := toolText(toolUpdate(updates, id).Content)
		assert.True(t, strings.HasPrefix(text, want+"\n\n```json\n"), "card %s: %q", id, text)
	}
}
