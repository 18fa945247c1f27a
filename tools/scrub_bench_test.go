package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/guard/scrub"
)

// BenchmarkScrub100k measures what the scrubber adds to a 100,000-row
// read on SQLite whose masked column holds 100,000 distinct values, as
// ratios against the same work without it in the same loop:
//
//   - "model-%": execute_sql of every row, the model's view (its first
//     ModelBytes), encoded, then scrubbed: the path every result takes;
//   - "all-rows-%": the JSON of all 100,000 rows scrubbed, against
//     reading and encoding them all: the bound if every row went to
//     the model.
//
// "rule-%" is the statement rule (which columns the statement masks)
// against the same read. "build-ms" is reading the distinct values and building the automaton,
// done once per schema read; "values" is how many it holds.
func BenchmarkScrub100k(b *testing.B) {
	src := dbtest.SQLite(b)
	dbtest.Exec(b, src,
		"CREATE TABLE people (id integer PRIMARY KEY, note text, email text)",
		"INSERT INTO people WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000) "+
			"SELECT n, 'note ' || n, lower(hex(randomblob(5))) || '.' || n || '@example.com' FROM c",
	)
	src.Mask = []string{"people.email"}
	db := openDB(b, src, engine.Options{MaxRows: 100_000, StatementTimeout: time.Minute})
	s := NewSet(db, nil)
	ctx := context.Background()
	args, _ := json.Marshal(map[string]string{"sql": "SELECT id, note, email FROM people"})

	start := time.Now()
	set, _ := db.MaskedValues(ctx, guard.NewScrubber).(*scrub.Set)
	build := time.Since(start)
	if set.Len() != 100_000 {
		b.Fatalf("the scrubber holds %d values, want 100000", set.Len())
	}
	encode := func(v any) string {
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			b.Fatal(err)
		}
		return sb.String()
	}
	var read, encodeAll, scrubModel, scrubAll, rule time.Duration
	for b.Loop() {
		t0 := time.Now()
		out, err := s.Run(ctx, ToolExecuteSQL, args)
		if err != nil {
			b.Fatal(err)
		}
		res := out.(*engine.StatementResult)
		view := encode(s.ModelView(res))
		t1 := time.Now()
		if got := s.Scrub(ctx, view, true); len(got) == 0 {
			b.Fatal("empty scrub")
		}
		t2 := time.Now()
		all := encode(res.Rows) // the values in clear: none is masked by the rule
		t3 := time.Now()
		if got := s.Scrub(ctx, all, true); strings.Contains(got, "@example.com\"") {
			b.Fatal("a value was left in the rows")
		}
		t4 := time.Now()
		s.mask.MaskedColumns(res.SQL, res.Columns)
		rule += time.Since(t4)
		read += t1.Sub(t0)
		scrubModel += t2.Sub(t1)
		scrubAll += t4.Sub(t3)
		encodeAll += t3.Sub(t2)
	}
	b.ReportMetric(100*float64(scrubModel)/float64(read), "model-%")
	b.ReportMetric(100*float64(scrubAll)/float64(read+encodeAll), "all-rows-%")
	b.ReportMetric(100*float64(rule)/float64(read), "rule-%")
	b.ReportMetric(float64(build.Milliseconds()), "build-ms")
	b.ReportMetric(float64(set.Len()), "values")
}
