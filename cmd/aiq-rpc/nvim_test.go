package main

// The Neovim plugin's tests (editors/nvim) run real Neovim headless, with
// the plugin on its runtimepath and one Lua script of editors/nvim/test
// per scenario. The plugin spawns the aiq-rpc built by TestMain, whose
// model is the scripted llmtest server and whose data source is a real
// SQLite file. A script quits with status 0 when its checks pass; this
// file sets each scenario up and checks what only the outside can see:
// what the model was sent, the rows in SQLite, the session files.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// nvimRunTimeout bounds one Neovim run; the scripts' own waits (two
// minutes, editors/nvim/test/helper.lua) are shorter, so that a stuck
// scenario says what it waited for. Both only stop a hung run.
const nvimRunTimeout = 2 * waitTimeout

// nvimTest is one scenario's world: the model, the database, the home.
type nvimTest struct {
	t     *testing.T
	nvim  string
	model *llmtest.Server
	src   sessionio.Source
	home  home
	tmp   string // the scripts' scratch folder, AIQ_TEST_TMP
	xdg   string // Neovim's XDG folders: its cache holds the server's logs
}

// findNvim returns Neovim's path, or skips the test with the reason; CI
// sets AIQ_DBTEST_REQUIRE=1, which makes a missing Neovim a failure.
func findNvim(t *testing.T) string {
	path, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("AIQ_DBTEST_REQUIRE") == "1" {
			t.Fatalf("nvim is not installed and AIQ_DBTEST_REQUIRE=1: apt-get install neovim")
		}
		t.Skip("nvim is not installed, so the Neovim plugin is not tested: apt-get install neovim")
	}
	return path
}

func pluginDir(t testing.TB) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "editors", "nvim"))
	require.NoError(t, err)
	return dir
}

// screenshotDir is AIQ_SCREENSHOT_DIR, where the README's screenshots are
// written, or "". A relative one is taken from the repository's root, as
// the README runs it ("AIQ_SCREENSHOT_DIR=docs/screenshots go test ..."):
// go test runs in the package's folder, Neovim in a temporary one.
func screenshotDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("AIQ_SCREENSHOT_DIR")
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return filepath.Join(root, dir)
}

// nvimCommand runs editors/nvim/test/<script>.lua in headless Neovim with
// the plugin on its runtimepath, in folder dir, with Neovim's own files
// under xdg and env added to childEnv's.
func nvimCommand(ctx context.Context, t testing.TB, nvim, script, dir, xdg string, env ...string) *exec.Cmd {
	plugin := pluginDir(t)
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "--noplugin",
		"--cmd", "set rtp^="+plugin,
		"-c", "runtime plugin/aiq.lua",
		"-c", "luafile "+filepath.Join(plugin, "test", script+".lua"))
	cmd.Dir = dir
	cmd.Env = childEnv(append([]string{
		"XDG_CACHE_HOME=" + filepath.Join(xdg, "cache"),
		"XDG_STATE_HOME=" + filepath.Join(xdg, "state"),
		"XDG_DATA_HOME=" + filepath.Join(xdg, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(xdg, "config"),
	}, env...)...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// newNvimTest makes a home whose model answers with steps and whose one
// source, "db", is a SQLite database with an orders table.
func newNvimTest(t *testing.T, nvim string, steps ...llmtest.Step) *nvimTest {
	model := llmtest.NewServer(t, steps...)
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	h := home{Dir: t.TempDir()}.withModel(t, model.URL)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	return &nvimTest{t: t, nvim: nvim, model: model, src: src, home: h, tmp: t.TempDir(), xdg: t.TempDir()}
}

// run runs editors/nvim/test/<script>.lua in headless Neovim with the
// plugin, fails the test unless it quits with status 0, and returns what
// it printed.
func (n *nvimTest) run(script string, env ...string) string {
	t := n.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nvimRunTimeout)
	defer cancel()
	cmd := nvimCommand(ctx, t, n.nvim, script, n.tmp, n.xdg, append([]string{
		"AIQ_TEST_SERVER=" + binary,
		"AIQ_TEST_HOME=" + n.home.Dir,
		"AIQ_TEST_SOURCE=db",
		"AIQ_TEST_TMP=" + n.tmp,
		"AIQ_SCREENSHOT_DIR=" + screenshotDir(t),
	}, env...)...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	logs := n.serverLogs()
	if ctx.Err() != nil {
		t.Fatalf("nvim %s did not finish within %v; its output:\n%s\nthe server's logs:\n%s", script, nvimRunTimeout, out, logs)
	}
	if err != nil {
		t.Fatalf("nvim %s failed (%v) after %v; its output:\n%s\nthe server's logs:\n%s", script, err, time.Since(start).Round(time.Millisecond), out, logs)
	}
	t.Logf("nvim %s passed in %v", script, time.Since(start).Round(time.Millisecond))
	assertNoRace(t, logs)
	for _, text := range []string{string(out), logs} {
		assert.NotContains(t, text, testAPIKey, "the API key was shown")
	}
	return string(out)
}

// serverLogs returns what the servers wrote: their log files, and their
// stderr, which Neovim's RPC client writes to its LSP log.
func (n *nvimTest) serverLogs() string {
	var b strings.Builder
	for _, name := range []string{"nvim/aiq-rpc.log", "nvim/lsp.log"} {
		if data, err := os.ReadFile(filepath.Join(n.xdg, "cache", name)); err == nil {
			fmt.Fprintf(&b, "== %s\n%s", name, data)
		}
	}
	return b.String()
}

func (n *nvimTest) countOrders(where string) int64 {
	return dbtest.QueryInt(n.t, n.src, "SELECT count(*) FROM orders WHERE "+where)
}

// userMessages are the user messages of the model's request i (from 0).
func (n *nvimTest) userMessages(i int) []string {
	reqs := n.model.Requests()
	require.Greater(n.t, len(reqs), i, "the model got too few requests")
	var users []string
	for _, m := range reqs[i].Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	return users
}

// lastUserMessage is the last user message of the model's request i.
func (n *nvimTest) lastUserMessage(i int) string {
	users := n.userMessages(i)
	require.NotEmpty(n.t, users, "request %d has no user message", i)
	return users[len(users)-1]
}

// script writes an executable shell script into the test's scratch folder.
func (n *nvimTest) script(name, body string) string {
	path := filepath.Join(n.tmp, name)
	require.NoError(n.t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

// holdStep answers with a stream that never ends, after writing the file
// held-<N> (N counts the model's requests) for the script to wait on.
func (n *nvimTest) holdStep() llmtest.Step {
	return llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
		os.WriteFile(filepath.Join(n.tmp, fmt.Sprintf("held-%d", req.N)), nil, 0o600)
		return llmtest.Step{Hold: true}
	}}
}

func sqlCall(id, sql string) llmtest.Step {
	return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": sql})}}}
}

// TestNvimPlugin runs each scenario of the Neovim plugin.
// wideSelect is a SELECT of 12 columns, too wide for a panel.
const wideSelect = "SELECT id, status, 'three-' || id AS c3, 'four-' || id AS c4, 'five-' || id AS c5, 'six-' || id AS c6, " +
	"'seven-' || id AS c7, 'eight-' || id AS c8, 'nine-' || id AS c9, 'ten-' || id AS c10, 'eleven-' || id AS c11, " +
	"'twelve-' || id AS c12 FROM orders ORDER BY id"

func TestNvimPlugin(t *testing.T) {
	nvim := findNvim(t)

	t.Run("Render", func(t *testing.T) {
		t.Parallel()
		(&nvimTest{t: t, nvim: nvim, tmp: t.TempDir(), xdg: t.TempDir()}).run("render")
	})

	t.Run("Messages", func(t *testing.T) {
		t.Parallel()
		(&nvimTest{t: t, nvim: nvim, tmp: t.TempDir(), xdg: t.TempDir()}).run("message")
	})

	t.Run("Selection", func(t *testing.T) {
		t.Parallel()
		(&nvimTest{t: t, nvim: nvim, tmp: t.TempDir(), xdg: t.TempDir()}).run("selection")
	})

	t.Run("AskAboutSelection", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, askSteps()...)
		n.run("ask")
		question := n.lastUserMessage(0)
		assert.Equal(t, "what does this do?\n\n```sql\nSELECT status, count(*) AS n\nFROM orders GROUP BY status;\n```", question,
			"the model gets the question and the selection in a sql block")
	})
	t.Run("History", func(t *testing.T) {
		t.Parallel()
		newNvimTest(t, nvim, sqlCall("call_1", "SELECT count(*) AS n FROM orders"), llmtest.Step{Text: "There are 4 orders."}).run("history")
	})

	t.Run("RestoreLastSession", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, sqlCall("call_1", "SELECT count(*) AS n FROM orders"),
			llmtest.Step{Text: "There are 4 orders."}, llmtest.Step{Text: "One is pending."})
		n.run("history")
		n.run("restore")
		n.run("restore_source")
		assert.Equal(t, []string{"How many orders are there?", "And how many are pending?"}, n.userMessages(2),
			"the reopened conversation goes on")
	})

	t.Run("PanelWidth", func(t *testing.T) {
		t.Parallel()
		newNvimTest(t, nvim,
			sqlCall("call_1", "SELECT id, status, 'delivered to the customer at the address on the order, '"+
				" || 'signed by the person who opened the door' AS note FROM orders ORDER BY id"),
			llmtest.Step{ToolCalls: []llmtest.Call{{ID: "call_2", Name: "render_chart", Arguments: `{"chart_type":"bar","x":"status","y":"id","title":"Orders by status"}`}}},
			llmtest.Step{Text: "Four orders, each with a long note."},
			llmtest.Step{Text: "One."},
		).run("panel")
	})

	t.Run("Results", func(t *testing.T) {
		t.Parallel()
		// Column 3 holds a value longer than a column of the result's tab.
		sql := strings.Replace(wideSelect, "'three-' || id AS c3", "'three-' || id || ', a note longer than a column of the tab shows' AS c3", 1)
		n := newNvimTest(t, nvim, sqlCall("call_1", sql), llmtest.Step{Text: "Here they are."})
		n.run("results")
		assert.Len(t, n.model.Requests(), 2, ":AiqRun and :AiqRerun do not ask the model")
	})

	t.Run("NoModel", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim)
		require.NoError(t, os.Remove(filepath.Join(n.home.Dir, "config", "config.yaml")))
		n.run("nomodel")
	})

	t.Run("ThoughtAndModel", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, streamStep(t, "think_split"), llmtest.Step{Text: "From b."})
		n.model.SetModels("test-model", "b-model")
		n.run("thought")
		reqs := n.model.Requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, "test-model", reqs[0].Model)
		assert.Equal(t, "b-model", reqs[1].Model, ":AiqModel picked the model of the second question")
	})

	t.Run("LiveConfig", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, llmtest.Step{Text: "There are 4 orders."})
		require.NoError(t, os.Remove(filepath.Join(n.home.Dir, "config", "config.yaml")))
		n.run("liveconfig", "AIQ_TEST_MODEL_URL="+n.model.URL, "AIQ_TEST_API_KEY="+testAPIKey)
	})

	t.Run("Clear", func(t *testing.T) {
		t.Parallel()
		newNvimTest(t, nvim, llmtest.Step{Text: "There are 4 orders."}, llmtest.Step{Text: "None."}).run("clear")
	})

	t.Run("SaveThenLoadInANewNeovim", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, sqlCall("call_1", "SELECT count(*) AS n FROM orders"),
			llmtest.Step{Text: "There are 4 orders."}, llmtest.Step{Text: "One is pending."})
		n.run("save")
		saved := filepath.Join(n.tmp, "saved.json")
		data, err := os.ReadFile(saved)
		require.NoError(t, err)
		require.NoError(t, sessiontest.CheckCLILoadRules(data), "the saved file is a session the CLI loads")
		assert.Contains(t, string(data), "How many orders are there?", ":AiqClear after :AiqSave PATH kept the copy")
		own, err := filepath.Glob(filepath.Join(n.home.sessionsDir(), "session_*.json"))
		require.NoError(t, err)
		require.Len(t, own, 1, "the session's own file")
		ownData, err := os.ReadFile(own[0])
		require.NoError(t, err)
		assert.NotContains(t, string(ownData), "How many orders are there?", ":AiqClear emptied the session's own file")

		// The home's sessions folder holds only a copy, which completion
		// and :AiqSessions must offer; the source the session used is
		// renamed, so loading it warns; its label shows in :AiqSource.
		require.NoError(t, os.RemoveAll(n.home.sessionsDir()))
		n.home.writeFile(t, "sessions/copy.json", string(data))
		n.home.writeFile(t, "config/sources.yaml", strings.Replace(sourcesYAML(n.src), "name: db", "name: other", 1)+"  label: staging\n")
		n.run("load", "AIQ_TEST_SOURCE=other")
		assert.Contains(t, n.lastUserMessage(2), "how many are pending", "the question after loading")
		assert.Equal(t, []string{"How many orders are there?", "And how many are pending?"}, n.userMessages(2), "the loaded conversation goes on")
	})

	t.Run("Cancel", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim)
		n.model.Add(n.holdStep(), n.holdStep())
		n.run("cancel")
	})

	t.Run("EarlyRows", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim)
		n.model.Add(n.holdStep())
		n.run("early")
	})

	t.Run("EarlyRowsFromTheServer", func(t *testing.T) {
		t.Parallel()
		newNvimTest(t, nvim,
			sqlCall("call_1", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT i, i * 2 AS twice FROM n"),
			llmtest.Step{Text: "20,000 numbers."},
		).run("early_real")
	})

	t.Run("ConfirmOutsideRead", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, sqlCall("call_1", "SELECT readfile('/etc/hostname') AS name"), llmtest.Step{Text: "Not read."})
		n.run("early_real_outside")
		assert.Contains(t, n.model.Requests()[1].Messages[len(n.model.Requests()[1].Messages)-1].Content, "declined",
			"the model is told the user declined")
	})

	t.Run("ConfirmWrites", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim,
			sqlCall("call_1", "DELETE FROM orders WHERE status = 'shipped'"), llmtest.Step{Text: "Not deleted."},
			sqlCall("call_2", "DELETE FROM orders WHERE status = 'pending'"), llmtest.Step{Text: "Deleted."},
			sqlCall("call_3", "DELETE FROM orders WHERE status = 'delivered'"), llmtest.Step{Text: "Not deleted."},
			sqlCall("call_4", "DELETE FROM orders WHERE status = 'cancelled'"), llmtest.Step{Text: "Deleted."},
			sqlCall("call_5", "DELETE FROM orders WHERE id = 1"), llmtest.Step{Text: "Deleted."},
			sqlCall("call_6", "DELETE FROM orders"), llmtest.Step{Text: "Not deleted."},
		)
		n.run("confirm")
		assert.EqualValues(t, 1, n.countOrders("status = 'shipped'"), "the rejected DELETE did not run")
		assert.EqualValues(t, 0, n.countOrders("status = 'pending'"), "the DELETE allowed once ran")
		assert.EqualValues(t, 1, n.countOrders("status = 'delivered' AND id <> 1"), "the DELETE dismissed with Esc did not run")
		assert.EqualValues(t, 0, n.countOrders("status = 'cancelled' OR id = 1"), "the DELETEs allowed always ran")
		assert.Positive(t, n.countOrders("1 = 1"), "the DELETE without WHERE, rejected, did not run")
	})

	t.Run("ConfirmMaskedWrite", func(t *testing.T) {
		t.Parallel()
		token := regexp.MustCompile(`<masked:status:[0-9a-f]{12,}>`)
		n := newNvimTest(t, nvim,
			sqlCall("call_1", "SELECT id, status FROM orders WHERE id = 3"),
			llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
				return sqlCall("call_2", "DELETE FROM orders WHERE status = '"+token.FindString(req.Messages[len(req.Messages)-1].Content)+"'")
			}},
			llmtest.Step{Text: "Not deleted."},
		)
		n.home.writeFile(t, "config/sources.yaml", sourcesYAML(n.src)+"  mask: [orders.status]\n")
		n.run("masked_confirm")
		assert.EqualValues(t, 1, n.countOrders("status = 'pending'"), "the rejected DELETE did not run")
		for _, r := range n.model.Requests() {
			assert.NotContains(t, string(r.Body), "pending", "request %d to the model holds the masked value", r.N)
		}
	})

	t.Run("ServerCannotStart", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, llmtest.Step{Text: "Hello there."})
		broken := n.script("broken-aiq-rpc", "echo 'aiq-rpc: cannot read the configuration (broken on purpose)' >&2\nexit 3\n")
		n.run("startfail", "AIQ_TEST_BROKEN="+broken)
	})

	t.Run("ServerDiesThenRestarts", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim, llmtest.Step{Text: "There are 4 orders."})
		n.model.Add(n.holdStep(), llmtest.Step{Text: "One is pending."})
		wrapper := n.script("aiq-rpc-wrapper", "echo $$ > \"$AIQ_TEST_TMP/server.pid\"\nexec \"$AIQ_TEST_SERVER\" \"$@\"\n")
		n.run("crash", "AIQ_TEST_WRAPPER="+wrapper)
		assert.Equal(t, []string{"How many orders are there?", "And how many are pending?"}, n.userMessages(2),
			"the restarted server reopened the session: the turn in flight is lost, the one before is not")
	})

	t.Run("ServerMessages", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim)
		n.home.writeFile(t, "config/config.yaml", "llm: [not yaml\n")
		n.run("messages")
	})

	t.Run("TurnErrorInPanel", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim,
			llmtest.Step{Status: 404, Body: `{"error":{"message":"unknown model test-model","type":"invalid_request_error"}}`},
			llmtest.Step{Text: "Three orders."})
		n.run("turnerror")
	})

	t.Run("HelpAndHealth", func(t *testing.T) {
		t.Parallel()
		n := newNvimTest(t, nvim)
		doc, err := os.ReadFile(filepath.Join(pluginDir(t), "doc", "aiq.txt"))
		require.NoError(t, err)
		// helptags writes a tags file beside the help: a copy keeps the
		// work tree clean.
		require.NoError(t, os.MkdirAll(filepath.Join(n.tmp, "rt", "doc"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(n.tmp, "rt", "doc", "aiq.txt"), doc, 0o644))
		n.run("docs")
	})
}

// askSteps script the model of the ask scenarios: a query, a chart, then
// an answer streamed word by word.
func askSteps() []llmtest.Step {
	return []llmtest.Step{
		sqlCall("call_1", "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"),
		{ToolCalls: []llmtest.Call{{ID: "call_2", Name: "render_chart", Arguments: `{"chart_type":"bar","x":"status","y":"n","title":"Orders by status"}`}}},
		{Text: "It counts the orders of each status: two are delivered, one is pending and one shipped.", Pace: 60 * time.Millisecond},
	}
}

// tmuxNvim is real Neovim, not headless, in a tmux terminal of 120x40 on
// a tmux server of its own, driven by keys as a person would.
type tmuxNvim struct {
	t      *testing.T
	n      *nvimTest
	path   string // tmux
	socket string
	env    []string
}

// findTmux returns tmux's path, or skips the test with the reason; CI sets
// AIQ_DBTEST_REQUIRE=1, which makes a missing tmux a failure.
func findTmux(t *testing.T) string {
	path, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("AIQ_DBTEST_REQUIRE") == "1" {
			t.Fatalf("tmux is not installed and AIQ_DBTEST_REQUIRE=1: apt-get install tmux")
		}
		t.Skip("tmux is not installed, so Neovim is not tested in a terminal: apt-get install tmux")
	}
	return path
}

// startTmuxNvim starts Neovim in tmux in n's scratch folder, running
// editors/nvim/test/<script>.lua and then editing the files args.
func startTmuxNvim(t *testing.T, n *nvimTest, tmuxPath, script string, args ...string) *tmuxNvim {
	// The socket names the test: the temporary folders of tests that run
	// in parallel may end alike ("003"), and so may those of two test
	// processes, as two clones tested at once.
	tn := &tmuxNvim{t: t, n: n, path: tmuxPath, socket: "aiq-nvim-test-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + strconv.Itoa(os.Getpid()) + "-" + filepath.Base(n.tmp)}
	tn.env = childEnv(
		"AIQ_TEST_SERVER="+binary, "AIQ_TEST_HOME="+n.home.Dir, "AIQ_TEST_SOURCE=db", "AIQ_TEST_TMP="+n.tmp,
		"XDG_CACHE_HOME="+filepath.Join(n.xdg, "cache"), "XDG_STATE_HOME="+filepath.Join(n.xdg, "state"),
		"XDG_DATA_HOME="+filepath.Join(n.xdg, "data"), "XDG_CONFIG_HOME="+filepath.Join(n.xdg, "config"),
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=xterm-256color",
	)
	dir := pluginDir(t)
	// Started in the scratch folder, so that the status line shows a
	// file's name rather than a temporary path.
	tn.tmux("new-session", "-d", "-s", "aiq", "-x", "120", "-y", "40", "-c", n.tmp,
		fmt.Sprintf("%s -u NONE -i NONE --noplugin --cmd 'set rtp^=%s' -c 'runtime plugin/aiq.lua' -c 'luafile %s' %s",
			n.nvim, dir, filepath.Join(dir, "test", script+".lua"), strings.Join(args, " ")))
	t.Cleanup(func() {
		exec.Command(tmuxPath, "-L", tn.socket, "kill-server").Run()
		if t.Failed() {
			t.Logf("the server's logs:\n%s", n.serverLogs())
		}
	})
	return tn
}

func (tn *tmuxNvim) tmux(args ...string) string {
	t := tn.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tn.path, append([]string{"-u", "-L", tn.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = tn.env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "tmux %v: %s", args, out)
	return string(out)
}

// keys sends keys as tmux names them (Enter, Escape, "o").
func (tn *tmuxNvim) keys(keys ...string) {
	tn.tmux(append([]string{"send-keys", "-t", "aiq"}, keys...)...)
}

// typeText types text literally.
func (tn *tmuxNvim) typeText(text string) {
	tn.tmux("send-keys", "-t", "aiq", "-l", text)
}

func (tn *tmuxNvim) screen() string { return tn.tmux("capture-pane", "-p", "-t", "aiq") }

// waitScreen waits for the screen to satisfy ok, and returns it; only a
// hang reaches its deadline.
func (tn *tmuxNvim) waitScreen(what string, ok func(string) bool) string {
	t := tn.t
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		s := tn.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen did not show %s within %v:\n%s", what, waitTimeout, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quit quits Neovim with :qa! and waits for it to be gone.
func (tn *tmuxNvim) quit() {
	t := tn.t
	t.Helper()
	tn.keys("Escape", ":qa!", "Enter")
	waitGone := time.Now().Add(waitTimeout)
	for exec.Command(tn.path, "-L", tn.socket, "has-session", "-t", "aiq").Run() == nil {
		if time.Now().After(waitGone) {
			t.Fatalf("Neovim did not quit within %v:\n%s", waitTimeout, tn.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	assertNoRace(t, tn.n.serverLogs())
}

// TestNvimInTmux runs real Neovim, not headless, in a tmux terminal of
// 120x40, types a question about a visual selection as a person would, and
// reads the screen: the panel beside the SQL, the table, the chart and the
// answer, with the cursor still in the SQL window. With AIQ_SCREENSHOT_DIR
// set, the screen is saved there as nvim-chat.txt for the README.
func TestNvimInTmux(t *testing.T) {
	nvim := findNvim(t)
	tmuxPath := findTmux(t)
	t.Parallel()
	n := newNvimTest(t, nvim, askSteps()...)
	sqlFile := filepath.Join(n.tmp, "orders.sql")
	require.NoError(t, os.WriteFile(sqlFile, []byte("-- orders per status\nSELECT status, count(*) AS n\nFROM orders GROUP BY status;\n"), 0o644))
	tn := startTmuxNvim(t, n, tmuxPath, "tmux", filepath.Base(sqlFile))

	tn.waitScreen("the SQL file", func(s string) bool { return strings.Contains(s, "FROM orders GROUP BY status;") })
	tn.keys("2GVj:")
	tn.typeText("AiqAsk what does this do?")
	tn.keys("Enter")
	final := tn.waitScreen("the whole answer", func(s string) bool {
		return strings.Contains(s, "It counts") && !strings.Contains(s, "running…")
	})
	for _, want := range []string{
		"| status    | n   |", "| delivered |   2 |", "| shipped   |   1 |", "(3 rows)",
		"📊 Orders by status (bar chart)", "what does this do?", "aiq://chat",
	} {
		assert.Contains(t, final, want, "the screen")
	}
	// The panel is the right-hand half; the cursor stayed on the left, in
	// the SQL file.
	first, _, ok := strings.Cut(final, "│")
	assert.True(t, ok, "no window separator on the first line:\n%s", final)
	assert.Equal(t, 120-120/2-1, utf8.RuneCountInString(first),
		"the separator's column: the panel takes half the width, the SQL window the rest but the separator:\n%s", final)
	x := strings.TrimSpace(tn.tmux("display-message", "-p", "-t", "aiq", "#{cursor_x}"))
	assert.Less(t, mustAtoi(t, x), 120/2-1, "the cursor's column: the focus left the SQL window")
	if dir := screenshotDir(t); dir != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "nvim-chat.txt"), []byte(final), 0o644))
	}
	tn.quit()
}

// TestNvimDialogKeysInTmux answers the plugin's real dialogs with keys in
// real Neovim, since headless Neovim's confirm() returns its default
// without reading keys: each button's hotkey picks it, and Enter and Esc
// give the safe answer (Reject for a write, No for Clear). Then a long
// error message takes one line and no "Press ENTER" prompt.
func TestNvimDialogKeysInTmux(t *testing.T) {
	nvim := findNvim(t)
	tmuxPath := findTmux(t)
	t.Parallel()
	n := &nvimTest{t: t, nvim: nvim, tmp: t.TempDir(), xdg: t.TempDir()}
	tn := startTmuxNvim(t, n, tmuxPath, "tmux_keys")
	answers := filepath.Join(n.tmp, "answers")
	cases := []struct{ key, want string }{
		{"Enter", "write reject"},
		{"Escape", "write reject"},
		{"o", "write allow_once"},
		{"a", "write allow_always"},
		{"r", "write reject"},
		{"Enter", "clear false"},
		{"Escape", "clear false"},
		{"n", "clear false"},
		{"y", "clear true"},
	}
	var got []string
	for i, c := range cases {
		dialog := "Allow (o)nce, Allow (a)lways, [R]eject:"
		if strings.HasPrefix(c.want, "clear") {
			dialog = "(Y)es, [N]o:"
		}
		tn.waitScreen(fmt.Sprintf("dialog %d (%s)", i+1, dialog), func(s string) bool { return strings.Contains(s, dialog) })
		tn.keys(c.key)
		deadline := time.Now().Add(waitTimeout)
		for {
			data, _ := os.ReadFile(answers)
			got = strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
			if len(got) > i || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		require.Len(t, got, i+1, "the answer to key %s in dialog %d; the screen:\n%s", c.key, i+1, tn.screen())
		assert.Equal(t, strings.ReplaceAll(c.want, " ", "_"), got[i], "key %s in dialog %d", c.key, i+1)
	}
	// Then a long error: one line, no "Press ENTER" prompt.
	screen := tn.waitScreen("the long error", func(s string) bool { return strings.Contains(s, "(:messages)") })
	assert.Contains(t, screen, "aiq: could not start aiq-rpc: a long reason", "the error's start")
	assert.NotContains(t, screen, "Press ENTER", "a prompt after a long message")
	tn.quit()
}

func mustAtoi(t *testing.T, s string) int {
	v, err := strconv.Atoi(s)
	require.NoError(t, err, "not a number: %q", s)
	return v
}
