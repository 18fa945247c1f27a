package tools

import (
	"context"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// BenchmarkCostGate measures what the cost gate adds to a read on a warm
// connection: the engine's estimate of a cheap query ("gate-ms"), beside
// the read itself in the same run ("read-ms") as the yardstick. The gate
// must add under 5 ms (docs/performance.md).
func BenchmarkCostGate(b *testing.B) {
	for _, c := range []struct {
		name   string
		source func(testing.TB) sessionio.Source
	}{
		{"postgres", dbtest.Postgres}, {"mariadb", dbtest.MariaDB}, {"sqlite", dbtest.SQLite},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := c.source(b)
			dbtest.Seed(b, src)
			db := openDB(b, src, engine.Options{})
			ctx := context.Background()
			const query = "SELECT name FROM t WHERE id = 2"
			db.Costly(ctx, query) // warm the connection
			db.Run(ctx, query, false)
			var gate, read time.Duration
			n := 0
			for b.Loop() {
				start := time.Now()
				if _, over := db.Costly(ctx, query); over {
					b.Fatal("a one-row read is over the limit")
				}
				mid := time.Now()
				if res := db.Run(ctx, query, false); res.Status != engine.StatusSuccess {
					b.Fatal(res.Error)
				}
				gate += mid.Sub(start)
				read += time.Since(mid)
				n++
			}
			gateMs := float64(gate.Microseconds()) / 1000 / float64(n)
			b.ReportMetric(gateMs, "gate-ms")
			b.ReportMetric(float64(read.Microseconds())/1000/float64(n), "read-ms")
		})
	}
}
