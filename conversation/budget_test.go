package conversation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSchemaBudgetReachesTheCard: a source's schema_budget bounds the card
// the model reads, a budget under the floor is raised to it, and without
// one the default holds every table of a small schema.
func TestSchemaBudgetReachesTheCard(t *testing.T) {
	src := dbtest.SQLite(t)
	var ddl []string
	for i := range 80 {
		// A column of its own each, or the tables would be one set of shards.
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE table_number_%02d (id integer PRIMARY KEY, name text NOT NULL, note_%02d text)", i, i))
	}
	dbtest.Exec(t, src, ddl...)
	var boxes SQLToolboxes
	defer boxes.Close()
	card := func(budget int) string {
		t.Helper()
		s := src
		s.Name = fmt.Sprintf("budget-%d", budget)
		s.SchemaBudget = budget
		box, err := boxes.Open(context.Background(), s, nil)
		require.NoError(t, err)
		return box.(*sqlToolbox).DescribeFor(context.Background(), "which names are there?")
	}
	tables := func(text string) int { return strings.Count(text, "table_number_") }

	whole := card(0)
	assert.Equal(t, 80, tables(whole), "the default budget holds 80 small tables")
	assert.NotContains(t, whole, "not shown")

	small := card(2048)
	assert.Less(t, tables(small), 80)
	assert.Contains(t, small, fmt.Sprintf("(%d more tables are not shown here", 80-tables(small)))

	floor := card(10)
	assert.Equal(t, tables(card(minSchemaBudget)), tables(floor), "a budget under the floor is the floor")
	assert.Greater(t, tables(floor), 0)
	assert.Less(t, tables(floor), tables(small))
}

// TestSchemaBudgetCeiling: a schema_budget over 256 KiB is lowered to it,
// so that a schema of 300 KiB is not all in the prompt.
func TestSchemaBudgetCeiling(t *testing.T) {
	src := dbtest.SQLite(t)
	var ddl []string
	for i := range 220 {
		var cols []string
		for c := range 40 {
			cols = append(cols, fmt.Sprintf("table_%03d_measurement_number_%02d text", i, c))
		}
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE wide_%03d (id integer PRIMARY KEY, %s)", i, strings.Join(cols, ", ")))
	}
	dbtest.Exec(t, src, ddl...)
	var boxes SQLToolboxes
	defer boxes.Close()
	src.SchemaBudget = 1 << 30
	box, err := boxes.Open(context.Background(), src, nil)
	require.NoError(t, err)
	// The schema is read once without the prompt's deadline, which a busy
	// machine under the race detector can pass on 9,000 columns.
	_, err = box.(*sqlToolbox).db.Schema(context.Background())
	require.NoError(t, err)
	card := box.(*sqlToolbox).DescribeFor(context.Background(), "which measurements are there?")
	assert.Greater(t, len(card), maxSchemaBudget/2)
	assert.Less(t, len(card), maxSchemaBudget+2048, "the card and the lines around it")
	assert.Contains(t, card, "more tables are not shown here")
}
