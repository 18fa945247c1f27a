package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaskedColumns: through MCP, whose results go to the host's model,
// the values of a masked column come back as tokens, in execute_sql's
// rows and in profile_column, and the call log holds none of them.
func TestMaskedColumns(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	maskStatus(t, f)
	cs := f.connect(nil)
	values := []string{"delivered", "pending", "shipped"}

	rows := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id, status FROM orders ORDER BY id"})
	require.False(t, rows.IsError, text(rows))
	prof := call(t, cs, "profile_column", map[string]any{"table": "orders", "column": "status"})
	require.False(t, prof.IsError, text(prof))
	for _, res := range []string{text(rows), text(prof), mustJSON(t, structured(t, rows)), mustJSON(t, structured(t, prof))} {
		assert.Contains(t, res, "masked:status:")
		for _, v := range values {
			assert.NotContains(t, res, v, "a masked value reached the host")
		}
	}
	logs, err := filepath.Glob(filepath.Join(f.home.Dir, "sessions", "mcp_*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, logs, "no call log")
	for _, l := range logs {
		data, err := os.ReadFile(l)
		require.NoError(t, err)
		for _, v := range values {
			assert.NotContains(t, string(data), v, "the call log %s holds a masked value", l)
		}
		assert.True(t, strings.Contains(string(data), "masked:status:"), "the call log holds the tokens")
	}
}

// TestMaskedTokensAcrossCalls: the MCP server is one session as masking
// sees it. A token one call returns finds its row in the next call, the
// same value has the same token in both, and a second connection to the
// same server understands it too.
func TestMaskedTokensAcrossCalls(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	maskStatus(t, f)
	cs := f.connect(nil)

	first := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id, status FROM orders WHERE id = 3"})
	require.False(t, first.IsError, text(first))
	token := regexp.MustCompile(`<masked:status:[0-9a-f]{12,}>`).FindString(text(first))
	require.NotEmpty(t, token, "no token in %s", text(first))
	assert.NotContains(t, text(first), "pending")

	found := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id FROM orders WHERE status = '" + token + "'"})
	require.False(t, found.IsError, text(found))
	assert.Equal(t, []any{[]any{float64(3)}}, structured(t, found)["rows"], "the token of the first call finds its row: %s", text(found))

	again := call(t, cs, "profile_column", map[string]any{"table": "orders", "column": "status"})
	require.False(t, again.IsError, text(again))
	assert.Contains(t, text(again), token, "the same value has the same token in another call")

	other := f.connect(nil)
	later := call(t, other, "execute_sql", map[string]any{"sql": "SELECT count(*) AS n FROM orders WHERE status = '" + token + "'"})
	require.False(t, later.IsError, text(later))
	assert.Equal(t, []any{[]any{float64(1)}}, structured(t, later)["rows"], "another connection to the same server: %s", text(later))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// maskStatus masks orders.status in the fixture's only source.
func maskStatus(t *testing.T, f *fixture) {
	t.Helper()
	path := f.home.SourcesPath()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, "  mask: [orders.status]\n"...), 0o600))
}

// TestMaskedWriteElicitation: the elicitation of a write that names its
// rows by a token shows the token, never the value it stands for, as the
// host's agent may read it (the editors' dialogs show the value).
func TestMaskedWriteElicitation(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	maskStatus(t, f)
	e := &elicitor{answer: answer("decline", "")}
	cs := f.connect(e.options())

	first := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id, status FROM orders WHERE id = 3"})
	require.False(t, first.IsError, text(first))
	token := regexp.MustCompile(`<masked:status:[0-9a-f]{12,}>`).FindString(text(first))
	require.NotEmpty(t, token, "no token in %s", text(first))

	res := call(t, cs, "execute_sql", map[string]any{"sql": "DELETE FROM orders WHERE status = '" + token + "'"})
	assert.True(t, res.IsError, "the declined DELETE: %s", text(res))
	asked := e.requests()
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0].Message, token, "the elicitation shows the statement as written")
	assert.NotContains(t, mustJSON(t, asked[0]), "pending", "the elicitation holds the masked value")
	assert.NotContains(t, text(res), "pending")
}
