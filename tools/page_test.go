package tools

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// manyRows returns a statement of the engine that reads n rows.
func manyRows(engine string, n int) string {
	switch engine {
	case "postgres":
		return "SELECT g AS n, 'row ' || g AS s FROM generate_series(1, " + strconv.Itoa(n) + ") AS g"
	case "mariadb":
		return "SELECT seq AS n, CONCAT('row ', seq) AS s FROM seq_1_to_" + strconv.Itoa(n)
	}
	return "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < " + strconv.Itoa(n) + ") " +
		"SELECT n, 'row ' || n AS s FROM c"
}

// TestFirstPage checks that a statement with more rows than a page
// reports its first page once, while it runs, with the rows of the final
// result; and that one that fits in a page reports none.
func TestFirstPage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		db := openDB(t, e.source(t), engine.Options{MaxRows: 100})
		var pages []*engine.StatementResult
		ctx := engine.WithFirstPage(context.Background(), func(r *engine.StatementResult) { pages = append(pages, r) })

		res := db.Run(ctx, manyRows(e.name, 1000), false)
		wantStatus(t, res, engine.StatusSuccess)
		if len(pages) != 1 {
			t.Fatalf("%d pages reported, want 1", len(pages))
		}
		p := pages[0]
		if p.Status != engine.StatusRunning || !p.Truncated || p.RowCount != 101 || p.SQL != res.SQL {
			t.Errorf("page: status %q, truncated %v, row count %d, sql %q; want running, true, 101, the statement",
				p.Status, p.Truncated, p.RowCount, p.SQL)
		}
		if !reflect.DeepEqual(p.Columns, res.Columns) || !reflect.DeepEqual(p.Rows, res.Rows) || len(p.Rows) != 100 {
			t.Errorf("the page has %d rows of columns %v; the result %d rows of %v, and they differ",
				len(p.Rows), p.Columns, len(res.Rows), res.Columns)
		}
		if res.RowCount != 1000 || !res.Truncated {
			t.Errorf("result: %d rows, truncated %v; want 1000, true", res.RowCount, res.Truncated)
		}

		pages = nil
		wantStatus(t, db.Run(ctx, manyRows(e.name, 100), false), engine.StatusSuccess)
		if len(pages) != 0 {
			t.Errorf("a statement of one page reported %d pages, want none", len(pages))
		}
	})
}
