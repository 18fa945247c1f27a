package mcp_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestMaskScrubsMCPResults: a view that renames a masked column hides it
// from the statement rule, so only the scrubber of known values stands
// between its values and the host's model. Every MCP answer goes through
// it, as a chat's tool results do: rows and errors alike.
func TestMaskScrubsMCPResults(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	dbtest.Exec(t, f.src, "CREATE VIEW v AS SELECT id, status AS st FROM orders")
	maskStatus(t, f)
	cs := f.connect(nil)
	for _, sql := range []string{
		"SELECT st FROM v ORDER BY id",
		"SELECT id, st AS plain FROM v",
		"SELECT group_concat(st, ',') FROM v",
		"SELECT max(st) FROM v",
		// An error that quotes the value, through the view.
		// "JSON path error near 'delivered'"
		"SELECT json_extract('{}', st) FROM v",
		"SELECT id FROM v WHERE json_extract('{}', st) IS NULL",
	} {
		res := call(t, cs, "execute_sql", map[string]any{"sql": sql})
		body := text(res) + mustJSON(t, res.StructuredContent)
		for _, v := range []string{"delivered", "pending", "shipped"} {
			assert.NotContains(t, strings.ToLower(body), v, "%s reached the host through %s: %s", v, sql, text(res))
		}
	}
	res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT st FROM v ORDER BY id"})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "<masked:status:", "the scrubber puts the value's token in its place")
	token := regexp.MustCompile(`<masked:status:[0-9a-f]{12,}>`).FindString(text(res))
	found := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id FROM orders WHERE status = '" + token + "' AND id = 3"})
	require.False(t, found.IsError, text(found))
	assert.NotContains(t, text(found)+mustJSON(t, found.StructuredContent), "pending", "the statement the host sent keeps its token")
	failed := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT json_extract('{}', st) FROM v"})
	require.True(t, failed.IsError, text(failed))
	assert.Contains(t, text(failed), "bad JSON path: '<masked:status:", "the error reaches the host, with the token in the value's place")
}
