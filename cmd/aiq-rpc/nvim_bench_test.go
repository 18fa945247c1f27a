package main

// Benchmarks of the Neovim plugin: how long the panel takes with the
// biggest result the server sends (500 rows) and with a long streamed
// answer. They measure and report, they assert no timing. One headless
// Neovim runs per benchmark run; its script (editors/nvim/test/bench_*.lua)
// loops over the samples itself, times them with vim.loop.hrtime() and
// writes its numbers as JSON, which are reported here with ReportMetric;
// ns/op is the script's median per sample, not the Neovim run.
//
//	go test -run '^$' -bench Nvim -benchtime 1x -count 3 ./cmd/aiq-rpc/

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// benchResults is what a bench script writes to $AIQ_BENCH_OUT.
type benchResults struct {
	Metrics map[string]float64 `json:"metrics"`
	Report  []string           `json:"report"`
}

// nvimBench is the world of one benchmark: Neovim, and the home of the
// server it spawns.
type nvimBench struct {
	b    *testing.B
	nvim string
	home home
}

// newNvimBench finds Neovim, or skips with the reason, and makes a home
// with no model and no source.
func newNvimBench(b *testing.B) *nvimBench {
	path, err := exec.LookPath("nvim")
	if err != nil {
		b.Skip("nvim is not installed, so the Neovim plugin is not benchmarked: apt-get install neovim")
	}
	return &nvimBench{b: b, nvim: path, home: home{Dir: b.TempDir()}}
}

// withItems gives the home its one source, "db": a SQLite database whose
// items table has 600 rows of 6 columns.
func (n *nvimBench) withItems() *nvimBench {
	b := n.b
	src := dbtest.SQLite(b)
	n.home.writeFile(b, "config/sources.yaml", sourcesYAML(src))
	// The items table: 600 rows of numbers, NULLs, accented, wide and
	// emoji text, and now and then a newline.
	dbtest.Exec(b, src,
		"CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, city text, amount real, qty integer, note text)",
		`INSERT INTO items
		 WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 600)
		 SELECT i,
		        'Zoë Ångström 日本語 ' || i,
		        CASE WHEN i % 7 = 0 THEN NULL ELSE (CASE i % 4 WHEN 0 THEN 'Zürich' WHEN 1 THEN '東京' WHEN 2 THEN 'São Paulo' ELSE 'Reykjavík' END) END,
		        CASE WHEN i % 11 = 0 THEN NULL ELSE i * 3.17 END,
		        i % 5,
		        CASE WHEN i % 50 = 0 THEN 'two' || char(10) || 'lines ' ELSE '' END || 'note ' || i || ' — 🚀 宽字符 lorem ipsum dolor sit amet, consectetur'
		 FROM s`,
	)
	return n
}

// run runs editors/nvim/test/<script>.lua with samples timed samples and
// reports its metrics; ns/op is replaced by the metric perOp (in units of
// scale ns).
func (n *nvimBench) run(script string, samples int, perOp string, scale float64, env ...string) {
	b := n.b
	b.Helper()
	tmp, xdg := b.TempDir(), b.TempDir()
	out := filepath.Join(tmp, "results.json")
	ctx, cancel := context.WithTimeout(context.Background(), nvimRunTimeout)
	defer cancel()
	cmd := nvimCommand(ctx, b, n.nvim, script, tmp, xdg, append([]string{
		// the plain build: a race-detector server would time the detector
		"AIQ_TEST_SERVER=" + plainBinary,
		"AIQ_TEST_HOME=" + n.home.Dir,
		"AIQ_TEST_SOURCE=db",
		"AIQ_TEST_TMP=" + tmp,
		"AIQ_BENCH_N=" + strconv.Itoa(samples),
		"AIQ_BENCH_OUT=" + out,
	}, env...)...)
	output, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		b.Fatalf("nvim %s did not finish within %v; its output:\n%s", script, nvimRunTimeout, output)
	}
	if err != nil {
		b.Fatalf("nvim %s failed (%v); its output:\n%s", script, err, output)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatalf("nvim %s wrote no results (%v); its output:\n%s", script, err, output)
	}
	var res benchResults
	if err := json.Unmarshal(data, &res); err != nil {
		b.Fatalf("nvim %s wrote bad results: %v\n%s", script, err, data)
	}
	if strings.Contains(string(output), testAPIKey) {
		b.Errorf("the API key was shown:\n%s", output)
	}
	n.report(res, perOp, scale)
}

func (n *nvimBench) report(res benchResults, perOp string, scale float64) {
	v, ok := res.Metrics[perOp]
	if !ok {
		n.b.Fatalf("the script reported no %q: %v", perOp, res.Metrics)
	}
	units := make([]string, 0, len(res.Metrics))
	for unit := range res.Metrics {
		units = append(units, unit)
	}
	sort.Strings(units)
	for _, unit := range units {
		n.b.ReportMetric(res.Metrics[unit], unit)
	}
	n.b.ReportMetric(v*scale, "ns/op")
	for _, line := range res.Report {
		n.b.Log(line)
	}
}

// benchSamples is b.N, but at least min, so that a median means something
// at -benchtime 1x.
func benchSamples(b *testing.B, min int) int {
	return max(b.N, min)
}

// BenchmarkNvimAsk500Rows is :AiqAsk of a SELECT of 500 rows through the
// real server, to the panel showing the table's end, with the default
// max_rows (50 rows shown) and with max_rows = 500.
func BenchmarkNvimAsk500Rows(b *testing.B) {
	for _, maxRows := range []int{50, 500} {
		b.Run("max_rows="+strconv.Itoa(maxRows), func(b *testing.B) {
			n := newNvimBench(b).withItems()
			n.run("bench_ask", benchSamples(b, 10), "ms/ask", 1e6, "AIQ_BENCH_MAX_ROWS="+strconv.Itoa(maxRows))
		})
	}
}

// BenchmarkNvimRender500Rows is render.statement of 500 rows x 6 columns,
// cut to the panel's width as a turn renders it (100 of 200 columns: the
// note column is cut on every row), and chat.add of it into the open
// panel, without a server; the last case writes under a long conversation
// (20,000 panel lines).
func BenchmarkNvimRender500Rows(b *testing.B) {
	for _, c := range []struct{ maxRows, panelLines int }{{50, 0}, {500, 0}, {50, 20000}} {
		name := "max_rows=" + strconv.Itoa(c.maxRows)
		if c.panelLines > 0 {
			name += "/panel=" + strconv.Itoa(c.panelLines) + "lines"
		}
		b.Run(name, func(b *testing.B) {
			n := newNvimBench(b)
			n.run("bench_render", benchSamples(b, 30), "us/render", 1e3,
				"AIQ_BENCH_MAX_ROWS="+strconv.Itoa(c.maxRows), "AIQ_BENCH_PANEL_LINES="+strconv.Itoa(c.panelLines))
		})
	}
}

// BenchmarkNvimStream is chat.stream of 1,000 and 2,000 pieces of ~20
// characters into the open panel.
func BenchmarkNvimStream(b *testing.B) {
	for _, pieces := range []int{1000, 2000} {
		b.Run("chunks="+strconv.Itoa(pieces), func(b *testing.B) {
			n := newNvimBench(b)
			n.run("bench_stream", benchSamples(b, 3), "ms/stream", 1e6, "AIQ_BENCH_PIECES="+strconv.Itoa(pieces))
		})
	}
}

// BenchmarkNvimAskStream is :AiqAsk through the real server of a question
// the scripted model answers with 1,000 words, one SSE chunk each, a chunk
// every pace (0: back to back; 1ms: a fast model). chunks=2 sends an answer
// as long in two chunks (llmtest splits a single word in two): the
// yardstick that streams almost nothing.
func BenchmarkNvimAskStream(b *testing.B) {
	const words = 1000
	streamed := strings.TrimSpace(strings.Repeat("rows ", words))
	whole := strings.Repeat("rows_", words)
	for _, c := range []struct {
		name string
		step llmtest.Step
	}{
		{"chunks=2", llmtest.Step{Text: whole}},
		{"chunks=1000/pace=0", llmtest.Step{Text: streamed}},
		{"chunks=1000/pace=1ms", llmtest.Step{Text: streamed, Pace: time.Millisecond}},
	} {
		b.Run(c.name, func(b *testing.B) {
			n := newNvimBench(b).withItems()
			samples := benchSamples(b, 5)
			steps := make([]llmtest.Step, samples+1)
			for i := range steps {
				steps[i] = c.step
			}
			n.home = n.home.withModel(b, llmtest.NewServer(b, steps...).URL)
			n.run("bench_ask_stream", samples, "ms/ask", 1e6, "AIQ_BENCH_ANSWER="+c.step.Text)
		})
	}
}
