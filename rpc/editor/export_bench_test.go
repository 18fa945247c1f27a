package editor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// BenchmarkExportCSV exports a million rows of a PostgreSQL table to CSV
// with result/export, through the server and its client, against a
// yardstick measured in the same run on the same query and server:
// psql -c "\copy (QUERY) to FILE csv header". It reports the median of
// each and their ratio.
func BenchmarkExportCSV(b *testing.B) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		b.Skip("psql is not installed, so there is no yardstick: install postgresql-client")
	}
	src := dbtest.MillionRows(b)
	for _, q := range []struct{ name, sql string }{
		{"int-text", "SELECT n, s FROM million"},
		{"int-text-numeric-bool", "SELECT n, s, n::numeric / 8 AS share, n % 2 = 0 AS even FROM million"},
	} {
		b.Run(q.name, func(b *testing.B) {
			c := startReal(b, src, &modeltest.Model{}, map[string]bool{"rowsOnce": true})
			var info conversation.Info
			c.Result("session/new", nil, &info)
			dir := b.TempDir()
			var aiq, yard []time.Duration
			for i := 0; b.Loop(); i++ {
				path := filepath.Join(dir, "aiq-"+strconv.Itoa(i)+".csv")
				start := time.Now()
				var res conversation.Exported
				c.Result("result/export", map[string]any{"sessionId": info.SessionID, "sql": q.sql, "format": "csv", "path": path}, &res)
				aiq = append(aiq, time.Since(start))
				if res.RowCount != 1_000_000 {
					b.Fatalf("exported %d rows, want a million", res.RowCount)
				}
				os.Remove(path)

				path = filepath.Join(dir, "psql-"+strconv.Itoa(i)+".csv")
				cmd := exec.Command(psql, "-X", "-q", "-h", src.Host, "-p", strconv.Itoa(src.Port), "-U", src.Username, "-d", src.Database,
					"-c", `\copy (`+q.sql+`) to '`+path+`' csv header`)
				cmd.Env = append(os.Environ(), "PGPASSWORD="+src.Password.Reveal())
				start = time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("psql: %v: %s", err, out)
				}
				yard = append(yard, time.Since(start))
				os.Remove(path)
			}
			reportPercentiles(b, aiq, "export-ms", time.Millisecond)
			reportPercentiles(b, yard, "psql-copy-ms", time.Millisecond)
			b.ReportMetric(float64(median(aiq))/float64(median(yard)), "x-psql")
		})
	}
}

func median(samples []time.Duration) time.Duration {
	s := slices.Clone(samples)
	slices.Sort(s)
	return s[len(s)/2]
}
