package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestNvimResultsInTmux: in real Neovim in a 120x40 tmux terminal, a
// 12-column result in the panel says how many columns it leaves out; gl
// in the panel opens the whole result in a tab, whose header stays above
// the rows as they scroll sideways; :AiqExport writes the CSV; :AiqRun
// runs the statement under the cursor of the SQL file; :AiqAllowances
// shows in a floating window. With
// AIQ_SCREENSHOT_DIR set, the tab's screen is saved as nvim-result-tab.txt.
func TestNvimResultsInTmux(t *testing.T) {
	nvim := findNvim(t)
	tmuxPath := findTmux(t)
	t.Parallel()
	n := newNvimTest(t, nvim, sqlCall("call_1", wideSelect), llmtest.Step{Text: "Here they are."})
	sqlFile := filepath.Join(n.tmp, "orders.sql")
	require.NoError(t, os.WriteFile(sqlFile, []byte("SELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status;\n"), 0o644))
	tn := startTmuxNvim(t, n, tmuxPath, "tmux", filepath.Base(sqlFile))
	tn.waitScreen("the SQL file", func(s string) bool { return strings.Contains(s, "FROM orders GROUP BY status") })

	tn.keys(":")
	tn.typeText("AiqAsk show everything about the orders")
	tn.keys("Enter")
	tn.waitScreen("the wide result", func(s string) bool {
		return strings.Contains(s, "more columns: gl to see all") && strings.Contains(s, "Here they are.")
	})

	tn.keys("C-w", "l", "G", "k", "k", "k", "g", "l")
	tab := tn.waitScreen("the result's tab", func(s string) bool { return strings.Contains(s, "aiq://result/1/header") })
	assert.Contains(t, tab, "| id  | status    | c3 ", "the header:\n%s", tab)
	assert.Contains(t, tab, "(4 rows)", "the rows and their count:\n%s", tab)
	assert.NotContains(t, tab, "aiq://chat", "the tab shows the result alone:\n%s", tab)
	tn.keys("9", "0", "z", "l")
	scrolled := tn.waitScreen("the header and rows scrolled to column 12", func(s string) bool {
		return strings.Contains(s, "c12") && strings.Contains(s, "twelve-4")
	})
	if dir := screenshotDir(t); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "nvim-result-tab.txt"), []byte(scrolled), 0o644))
	}

	csv := filepath.Join(n.tmp, "all.csv")
	tn.keys(":")
	tn.typeText("AiqExport " + csv)
	tn.keys("Enter")
	tn.waitScreen("the export's message", func(s string) bool { return strings.Contains(s, "exported 4 rows") })
	data, err := os.ReadFile(csv)
	require.NoError(t, err)
	assert.Contains(t, string(data), "4,shipped,three-4,four-4,five-4,six-4,seven-4,eight-4,nine-4,ten-4,eleven-4,twelve-4\r\n")

	tn.keys(":")
	tn.typeText("tabclose")
	tn.keys("Enter", "C-w", "h", "g", "g")
	tn.keys(":")
	tn.typeText("AiqRun")
	tn.keys("Enter")
	tn.waitScreen("the statement's table", func(s string) bool {
		return strings.Contains(s, "| delivered |   2 |") && strings.Contains(s, "(3 rows)")
	})
	assert.Len(t, n.model.Requests(), 2, ":AiqRun does not ask the model")

	// :AiqAllowances opens a floating window over the editor; q closes it.
	tn.keys(":")
	tn.typeText("AiqAllowances")
	tn.keys("Enter")
	tn.waitScreen("the allowances' floating window", func(s string) bool {
		return strings.Contains(s, "╭") && strings.Contains(s, `│No "Allow always" is in force`)
	})
	tn.keys("q")
	tn.waitScreen("the floating window closed", func(s string) bool { return !strings.Contains(s, "╭") })
	tn.quit()
}
