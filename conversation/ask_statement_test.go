package conversation_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestAskWithoutModelKnowsEveryStatement: without a model, any single
// statement the classifier knows runs directly, whatever comments lead
// it, reads and writes alike (a write still goes through the toolbox, which
// asks); prose and several statements still say that no model is
// configured.
func TestAskWithoutModelKnowsEveryStatement(t *testing.T) {
	var ran []string
	ws, _ := newWorkspace(t, nil, &ran)
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	statements := []string{
		"/* note */ DELETE FROM t WHERE n = 1",
		"-- x\nSELECT 1",
		"ATTACH DATABASE '/tmp/other.db' AS other",
		"VACUUM INTO '/tmp/copy.db'",
		"PRAGMA table_info(t)",
		"WITH x AS (SELECT 1 AS n) SELECT n FROM x",
		"EXPLAIN QUERY PLAN SELECT n FROM t",
		"(SELECT n FROM t)",
		"REINDEX t",
		"CREATE TEMP TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t; END",
	}
	for _, sql := range statements {
		ran = nil
		_, err := ws.Ask(ctx, id, conversation.Question{Query: sql}, nil, nil)
		require.NoError(t, err, sql)
		assert.Equal(t, []string{sql}, ran, "%q runs directly", sql)
	}
	for _, q := range []string{"how many rows are in t", "Delete the old rows?", "SELECT 1; DELETE FROM t", "frobnicate t", "what's in t"} {
		ran = nil
		_, err := ws.Ask(ctx, id, conversation.Question{Query: q}, nil, nil)
		assert.ErrorIs(t, err, conversation.ErrNoModel, q)
		assert.Empty(t, ran, q)
	}
}
