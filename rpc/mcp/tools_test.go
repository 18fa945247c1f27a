package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolsList: each tool has a title, annotations that say what it may
// do and that its world is closed, an input schema and an output schema.
func TestToolsList(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		a := tool.Annotations
		assert.NotEmpty(t, a.Title, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		require.NotNil(t, a.OpenWorldHint, tool.Name)
		assert.False(t, *a.OpenWorldHint, tool.Name)
		require.NotNil(t, a.DestructiveHint, tool.Name)
		assert.Equal(t, tool.Name != "execute_sql", a.ReadOnlyHint, tool.Name)
		assert.Equal(t, tool.Name != "execute_sql", a.IdempotentHint, tool.Name)
		assert.Equal(t, tool.Name == "execute_sql", *a.DestructiveHint, tool.Name)
		in, _ := tool.InputSchema.(map[string]any)
		assert.Equal(t, "object", in["type"], tool.Name)
		out, _ := tool.OutputSchema.(map[string]any)
		assert.Equal(t, "object", out["type"], tool.Name)
	}
	assert.Equal(t, []string{"describe_table", "execute_sql", "explain_sql", "list_sources", "list_tables", "profile_column", "query", "search_schema"}, sorted(names))
}

// TestToolSchemas: the arguments each tool requires, the bound on
// describe_table's list, and output schemas that a validator accepts
// (every result is checked against them in schematools_test.go).
func TestToolSchemas(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	required := map[string][]any{}
	props := map[string]map[string]any{}
	for _, tool := range res.Tools {
		in := tool.InputSchema.(map[string]any)
		required[tool.Name], _ = in["required"].([]any)
		props[tool.Name], _ = in["properties"].(map[string]any)
	}
	assert.Equal(t, map[string][]any{
		"list_sources": {}, "list_tables": {}, "describe_table": {}, "execute_sql": {"sql"}, "query": {"sql"},
		"search_schema": {"query"}, "profile_column": {"table", "column"}, "explain_sql": {"sql"},
	}, required)
	for name, p := range props {
		if name != "list_sources" {
			assert.Contains(t, p, "source", name)
		}
	}
	assert.Equal(t, 20.0, props["describe_table"]["tables"].(map[string]any)["maxItems"])
	assert.Len(t, newOutputs(t, cs), 8)
}

// TestToolsAreTheSetsTools: every MCP tool but list_sources is a tool of
// the chat's tool set, called by the same name, and the chat's chart tool,
// which means nothing to a host, is not offered.
func TestToolsAreTheSetsTools(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	specs, err := f.ws.ToolSpecs(context.Background(), "db")
	require.NoError(t, err)
	var set []string
	for _, s := range specs {
		set = append(set, s.Name)
	}
	res, err := f.connect(nil).ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range res.Tools {
		switch tool.Name {
		case "list_sources":
		case "query":
			assert.Contains(t, set, "execute_sql", "query is execute_sql for reads")
		default:
			assert.Contains(t, set, tool.Name)
		}
		assert.NotEqual(t, "render_chart", tool.Name)
	}
}

// TestListSources names each source with its type and where it is, the
// default marked, and never a password or a user name.
func TestListSources(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	res := call(t, f.connect(nil), "list_sources", nil)
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	sources := m["sources"].([]any)
	require.Len(t, sources, 2)
	first, second := sources[0].(map[string]any), sources[1].(map[string]any)
	assert.Equal(t, map[string]any{"name": "db", "type": "sqlite", "label": "test.sqlite", "default": true}, first)
	assert.Equal(t, map[string]any{"name": "other", "type": "postgresql", "label": "127.0.0.1:1/x", "default": false}, second)
	raw, _ := json.Marshal(res)
	assert.NotContains(t, string(raw), testPassword)
	assert.NotContains(t, string(raw), "analyst")
	assert.Contains(t, text(res), "| db | sqlite | test.sqlite | yes |")
}

// TestReadTools runs list_tables, describe_table and a SELECT on the
// database: structured content and a Markdown table of the same rows.
func TestReadTools(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(nil)

	res := call(t, cs, "list_tables", map[string]any{})
	require.False(t, res.IsError, text(res))
	assert.Equal(t, map[string]any{"source": "db", "tables": []any{"orders"}}, structured(t, res))
	assert.Contains(t, text(res), "| orders |")

	res = call(t, cs, "describe_table", map[string]any{"source": "db", "tables": []string{"orders"}})
	require.False(t, res.IsError, text(res))
	card := "table orders ~4 rows\ncolumns:\n  id int PK\n  status text NOT NULL\nprimary key: (id)\n"
	assert.Equal(t, map[string]any{"source": "db", "tables": []any{card}}, structured(t, res))
	assert.Equal(t, "Source db:\n\n```text\n"+card+"```", text(res))

	res = call(t, cs, "execute_sql", map[string]any{"sql": "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"})
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	assert.Equal(t, "success", m["status"])
	assert.Equal(t, []any{"status", "n"}, m["columns"])
	assert.Equal(t, []any{[]any{"delivered", 2.0}, []any{"pending", 1.0}, []any{"shipped", 1.0}}, m["rows"])
	assert.Equal(t, "| status | n |\n| --- | --- |\n| delivered | 2 |\n| pending | 1 |\n| shipped | 1 |\n\n3 row(s).", text(res))
}

// TestResultBound: a result larger than the chat's model bound comes back
// cut to it, with the full count and truncated set.
func TestResultBound(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	res := call(t, f.connect(nil), "execute_sql", map[string]any{"sql": "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5000) SELECT n, 'row number ' || n AS s FROM c"})
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	assert.Equal(t, 5000.0, m["row_count"])
	assert.Equal(t, true, m["truncated"])
	assert.Less(t, len(m["rows"].([]any)), 500)
	assert.Contains(t, text(res), "5000 row(s); only the first")
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestDefaultSource: without --source, the only configured source is the
// default; with several and none chosen, a call that names none says to
// name one, and one that names one runs.
func TestDefaultSource(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	res := call(t, f.connect(nil), "list_tables", nil)
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "db", structured(t, res)["source"])

	f = newFixture(t, fixtureOptions{noDefault: true})
	cs := f.connect(nil)
	res = call(t, cs, "list_tables", nil)
	require.True(t, res.IsError)
	assert.Contains(t, text(res), "2 sources are configured")
	assert.Contains(t, text(res), "db, other")
	res = call(t, cs, "list_tables", map[string]any{"source": "db"})
	require.False(t, res.IsError, text(res))
}
