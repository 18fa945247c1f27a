package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestQueryReads: query runs a statement that only reads, with the rows
// and structured content of execute_sql, and asks no one.
func TestQueryReads(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	e := &elicitor{answer: answer("accept", "allow_once")}
	cs := f.connect(e.options())
	res := newOutputs(t, cs).call(t, cs, "query", map[string]any{"sql": "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"})
	require.False(t, res.IsError, text(res))
	m := structured(t, res)
	assert.Equal(t, "success", m["status"])
	assert.Equal(t, []any{"status", "n"}, m["columns"])
	assert.Contains(t, text(res), "| status | n |")
	assert.Empty(t, e.requests(), "a read asks no one")
}

// TestQueryRefusesWrites: whatever the classifier does not call a read is
// refused before it runs, even with a client that would allow it, and the
// result sends the model to execute_sql.
func TestQueryRefusesWrites(t *testing.T) {
	for _, c := range []struct{ name, sql, says string }{
		{"delete", deleteSQL, "DELETE changes the database"},
		{"write in a WITH", "WITH d AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM d", "changes the database"},
		{"outside", "ATTACH DATABASE '/tmp/x.sqlite' AS x", "reaches outside the database"},
		{"ddl", "DROP TABLE orders", "DROP TABLE changes the database"},
		{"two statements", "SELECT 1; DELETE FROM orders", "did not run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			e := &elicitor{answer: answer("accept", "allow_once")}
			res := call(t, f.connect(e.options()), "query", map[string]any{"sql": c.sql})
			assert.True(t, res.IsError)
			assert.Contains(t, text(res), c.says)
			if c.name != "two statements" {
				assert.Contains(t, text(res), "execute_sql")
			}
			assert.Empty(t, e.requests(), "query never asks about a write")
			assert.Equal(t, int64(4), f.count(), "nothing ran")
		})
	}
}

// TestQueryCostlyReadAsks: a read the engine estimates above the source's
// max_estimated_rows still asks the user through query, as it would
// through execute_sql: it reads, so query is where it belongs.
func TestQueryCostlyReadAsks(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	dbtest.Exec(t, f.src, "CREATE TABLE big (id integer PRIMARY KEY)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT i FROM c")
	src := f.src
	src.MaxEstimatedRows = 1000
	f.writeSources(src)
	e := &elicitor{answer: answer("accept", "allow_once")}
	res := call(t, f.connect(e.options()), "query", map[string]any{"sql": "SELECT id FROM big"})
	require.False(t, res.IsError, text(res))
	require.Len(t, e.requests(), 1)
	assert.Contains(t, e.requests()[0].Message, "only reads, but is costly")
}
