package tools

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// BenchmarkSelectMillionRows reads a million rows, of which the result
// keeps MaxRows, and reports the process's peak resident memory
// ("peak-RSS-MiB": the rows must stream, never be held), the time to
// the first row ("first-row-ms") and to the first page that
// WithFirstPage reports while the statement runs ("first-page-ms").
func BenchmarkSelectMillionRows(b *testing.B) {
	for _, c := range []struct {
		name   string
		source func(testing.TB) sessionio.Source
		sql    string
	}{
		// generate_series is computed whole by the server before its first
		// row is sent; a table is read as it is scanned, as users' tables are.
		{"postgres", dbtest.Postgres, "SELECT g AS n, md5(g::text) AS s FROM generate_series(1, 1000000) AS g"},
		{"postgres-table", dbtest.MillionRows, "SELECT n, s FROM million"},
		{"mariadb", dbtest.MariaDB, "SELECT seq AS n, md5(seq) AS s FROM seq_1_to_1000000"},
		{"sqlite", dbtest.SQLite, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000) " +
			"SELECT n, hex(randomblob(16)) AS s FROM c"},
	} {
		b.Run(c.name, func(b *testing.B) {
			db := openDB(b, c.source(b), engine.Options{StatementTimeout: 5 * time.Minute})
			ctx := context.Background()
			resetPeakRSS()
			var firstRow, firstPage time.Duration
			for b.Loop() {
				start := time.Now()
				var page time.Duration
				res := db.Run(engine.WithFirstPage(ctx, func(*engine.StatementResult) { page = time.Since(start) }), c.sql, false)
				if res.Status != engine.StatusSuccess || res.RowCount != 1_000_000 || len(res.Rows) != engine.DefaultMaxRows {
					b.Fatalf("status %q (%s), %d rows counted, %d kept", res.Status, res.Error, res.RowCount, len(res.Rows))
				}
				if page == 0 {
					b.Fatal("no first page was reported")
				}
				firstRow += res.FirstRow
				firstPage += page
			}
			b.ReportMetric(float64(firstRow)/float64(b.N)/float64(time.Millisecond), "first-row-ms")
			b.ReportMetric(float64(firstPage)/float64(b.N)/float64(time.Millisecond), "first-page-ms")
			if peak, ok := peakRSS(); ok {
				b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// resetPeakRSS sets Linux's peak resident memory of the process back to
// its current one, so that each benchmark reports its own peak.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns the process's peak resident memory in bytes, VmHWM of
// /proc/self/status; ok is false where there is none.
func peakRSS() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
