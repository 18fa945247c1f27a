package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// hostsDir is the Node package that installs real MCP hosts from npm
// (rpc/mcp/testdata/hosts), and the program that acts as the user's
// browser in front of aiq's confirmation page.
const (
	hostsDir   = "../../rpc/mcp/testdata/hosts"
	browserPkg = "../../rpc/mcp/testdata/hosts/browser"
)

// scriptedCall is the one tool call a scripted model makes in a run: the
// host's first request gets it, every later one the end of the turn.
type scriptedCall struct {
	tool string
	sql  string
}

// responsesModel is a scripted model behind the OpenAI Responses API, as
// Codex speaks it: the first request of a run is answered with one call
// of an aiq tool, the next with a short text. It keeps what the host sent
// back as the call's output, the call log the test trusts rather than the
// host's own words.
type responsesModel struct {
	srv *httptest.Server

	mu      sync.Mutex
	call    scriptedCall
	turns   int
	outputs []string
}

func newResponsesModel(t *testing.T) *responsesModel {
	m := &responsesModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// script sets the call of the next run.
func (m *responsesModel) script(c scriptedCall) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.call, m.turns, m.outputs = c, 0, nil
}

// callOutputs are the outputs of the tool call the host reported back.
func (m *responsesModel) callOutputs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.outputs...)
}

func (m *responsesModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	turn := m.turns
	m.turns++
	call := m.call
	for _, in := range req.Input {
		if in.Type == "function_call_output" {
			var text string
			if json.Unmarshal(in.Output, &text) != nil {
				text = string(in.Output)
			}
			m.outputs = append(m.outputs, text)
		}
	}
	m.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", turn)
	event := func(kind string, data map[string]any) {
		data["type"] = kind
		line, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, line)
	}
	event("response.created", map[string]any{"response": map[string]any{"id": id}})
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
		"content": []map[string]any{{"type": "output_text", "text": "Done."}}}
	if turn == 0 {
		args, _ := json.Marshal(map[string]string{"sql": call.sql})
		// Codex offers an MCP server's tools as one namespace, mcp__<server>.
		item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id,
			"namespace": "mcp__aiq", "name": call.tool, "arguments": string(args)}
	}
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
}

// geminiModel is a scripted model behind the Gemini API
// (streamGenerateContent), as Gemini CLI speaks it: a request that holds
// no function response yet is answered with the one call of the run, any
// other with a short text. It keeps the function responses the host sent
// back.
type geminiModel struct {
	srv *httptest.Server

	mu      sync.Mutex
	call    scriptedCall
	outputs []string
}

func newGeminiModel(t *testing.T) *geminiModel {
	m := &geminiModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *geminiModel) script(c scriptedCall) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.call, m.outputs = c, nil
}

func (m *geminiModel) callOutputs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.outputs...)
}

func (m *geminiModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens":1}`)
		return
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var responses []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				responses = append(responses, string(p.FunctionResponse.Response))
			}
		}
	}
	m.mu.Lock()
	call := m.call
	if len(responses) > 0 {
		m.outputs = responses
	}
	m.mu.Unlock()
	part := map[string]any{"text": "Done."}
	if len(responses) == 0 {
		// Gemini CLI offers an MCP server's tools as mcp_<server>_<tool>.
		part = map[string]any{"functionCall": map[string]any{"name": "mcp_aiq_" + call.tool, "args": map[string]string{"sql": call.sql}}}
	}
	chunk, _ := json.Marshal(map[string]any{
		"candidates":    []map[string]any{{"index": 0, "finishReason": "STOP", "content": map[string]any{"role": "model", "parts": []any{part}}}},
		"usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "test-model",
	})
	if r.URL.Query().Get("alt") == "sse" {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", chunk)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(chunk)
}

// hostRig is what each host's scenarios share: the built binary, a home
// whose source pg is a real PostgreSQL database with an orders table, and
// the program that acts as the user's browser.
type hostRig struct {
	node    string
	dir     string // hostsDir, absolute: each host runs in a folder of its own
	home    home
	pg      sessionio.Source
	browser string
}

func newHostRig(t *testing.T, pkg, what string) hostRig {
	node := findNodeClient(t, hostsDir, pkg, what)
	pg := dbtest.Postgres(t)
	dbtest.Exec(t, pg,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	h := home{Dir: t.TempDir()}
	h.writeFile(t, "config/sources.yaml", fmt.Sprintf("- name: pg\n  type: postgresql\n  database: %q\n  host: %s\n  port: %d\n  username: %s\n  password: %q\n",
		pg.Database, pg.Host, pg.Port, pg.Username, pg.Password.Reveal()))
	browser := testBrowserProgram(t)
	dir, err := filepath.Abs(hostsDir)
	require.NoError(t, err)
	return hostRig{node: node, dir: dir, home: h, pg: pg, browser: browser}
}

// browserEnv is $BROWSER for a user who presses decision with the mouse
// in a real headless Chromium (so that the form post carries the
// browser's own Origin, not one the test wrote), and the file that
// records each page the user saw. Without Chromium the test is skipped,
// or fails under AIQ_DBTEST_REQUIRE=1.
func (r hostRig) browserEnv(t *testing.T, decision string) (string, string) {
	chromium := findChromium(t)
	record := filepath.Join(t.TempDir(), "opened.log")
	return r.browser + " -chromium " + chromium + " " + decision + " " + record, record
}

// pageRecord is what the test browser recorded, once it has: the host
// may end as soon as aiq has the answer, while the browser still shows
// the page's answer and closes.
func pageRecord(t *testing.T, record string) string {
	var data []byte
	waitUntil(t, "the test browser records the page it was opened on", func() bool {
		var err error
		data, err = os.ReadFile(record)
		return err == nil && len(data) > 0 && data[len(data)-1] == '\n'
	})
	return string(data)
}

// callLog is the log of the calls on pg in the home.
func (r hostRig) callLog(t *testing.T) string {
	logs, err := filepath.Glob(filepath.Join(r.home.sessionsDir(), "mcp_*_pg.json"))
	require.NoError(t, err)
	var b strings.Builder
	for _, l := range logs {
		data, err := os.ReadFile(l)
		require.NoError(t, err)
		b.Write(data)
	}
	return b.String()
}

const sleepSQL = "SELECT pg_sleep(600)"

// sleeping counts the pg_sleep of a scenario running on the server.
func (r hostRig) sleeping(t *testing.T) int64 {
	return dbtest.QueryInt(t, r.pg, "SELECT count(*) FROM pg_stat_activity WHERE query = '"+sleepSQL+"' AND pid <> pg_backend_pid()")
}

// ctrlC does what Ctrl-C in the terminal does: SIGINT to the foreground
// process group, the host and the servers it started.
func ctrlC(t *testing.T, cmd *exec.Cmd) {
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
}

// waitUntil polls cond until it holds, failing after waitTimeout with what.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, waitTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMCPHosts runs real MCP hosts installed from npm, headless, with
// `aiq-rpc mcp` as their server and a scripted model on 127.0.0.1 in
// place of theirs: a read through the read-only query tool with no
// approval set, a write the user allows in aiq's browser page (the host
// cannot ask), one the user rejects there, and Ctrl-C to the host
// stopping a pg_sleep on PostgreSQL. The test trusts the database, the
// call log and what the host handed back to the model, never the host's
// own text.
func TestMCPHosts(t *testing.T) {
	t.Run("codex", testCodex)
	t.Run("gemini", testGemini)
}

// testCodex drives Codex's `codex exec` (the Responses API).
func testCodex(t *testing.T) {
	rig := newHostRig(t, "@openai/codex", "Codex host")
	model := newResponsesModel(t)
	codexHome := t.TempDir()
	config := fmt.Sprintf(`model = "test-model"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[mcp_servers.aiq]
command = %q
args = ["mcp", "--home", %q]
`, model.srv.URL, binary, rig.home.Dir)
	require.NoError(t, os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600))

	// run runs codex exec with extra -c settings; stop, when set, is
	// called once the run has started and may end it.
	run := func(t *testing.T, c scriptedCall, browser string, extra []string, stop func(*exec.Cmd)) string {
		model.script(c)
		ctx, cancel := context.WithTimeout(context.Background(), 2*waitTimeout)
		defer cancel()
		args := []string{filepath.Join(rig.dir, "node_modules", "@openai", "codex", "bin", "codex.js"), "exec", "--skip-git-repo-check"}
		if browser != "" {
			args = append(args, "-c", fmt.Sprintf("mcp_servers.aiq.env={BROWSER=%q}", browser))
		}
		for _, e := range extra {
			args = append(args, "-c", e)
		}
		args = append(args, "Do what the scripted model says.")
		cmd := exec.CommandContext(ctx, rig.node, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = childEnv("CODEX_HOME="+codexHome, "HOME="+t.TempDir(), "OPENAI_API_KEY=test-key-never-used")
		cmd.WaitDelay = 10 * time.Second
		out := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		// Its own process group, as a terminal's foreground job: Ctrl-C
		// reaches the host and the servers it started.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		if stop != nil {
			stop(cmd)
		}
		err := cmd.Wait()
		if stop == nil {
			require.NoError(t, err, "codex exec:\n%s", out.String())
		}
		return out.String()
	}

	t.Run("read through query, no approval set", func(t *testing.T) {
		out := run(t, scriptedCall{"query", "SELECT count(*) AS n FROM orders WHERE status = 'delivered'"}, "", nil, nil)
		outputs := model.callOutputs()
		require.Len(t, outputs, 1, "the host handed back the call's output:\n%s", out)
		assert.Contains(t, outputs[0], `"status":"success"`)
		assert.Contains(t, outputs[0], `"rows":[[2]]`)
		assert.Contains(t, rig.callLog(t), "status = 'delivered'")
	})

	// Codex exec declines every elicitation at once, with no user: aiq
	// asks in the browser page. approval_mode lets the call reach aiq,
	// which still asks the user.
	approve := []string{`mcp_servers.aiq.tools.execute_sql.approval_mode="approve"`}
	t.Run("write allowed in the browser page", func(t *testing.T) {
		browser, record := rig.browserEnv(t, "allow_once")
		run(t, scriptedCall{"execute_sql", "DELETE FROM orders WHERE id = 1"}, browser, approve, nil)
		assert.Equal(t, "pressed allow_once\n", pageRecord(t, record), "the page was opened once and allowed")
		assert.Zero(t, dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders WHERE id = 1"), "the allowed DELETE ran")
		outputs := model.callOutputs()
		require.Len(t, outputs, 1)
		assert.Contains(t, outputs[0], `"status":"success"`)
		assert.Contains(t, outputs[0], `"truncated":false`)
		assert.NotContains(t, strings.Join(outputs, ""), "http://127.0.0.1", "the page's URL never reaches the model")
	})
	t.Run("write rejected in the browser page", func(t *testing.T) {
		browser, record := rig.browserEnv(t, "reject")
		before := dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders")
		run(t, scriptedCall{"execute_sql", "DELETE FROM orders WHERE id = 2"}, browser, approve, nil)
		assert.Equal(t, "pressed reject\n", pageRecord(t, record))
		assert.Equal(t, before, dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders"), "the rejected DELETE did not run")
		outputs := model.callOutputs()
		require.Len(t, outputs, 1)
		assert.Contains(t, outputs[0], `"status":"rejected"`)
		assert.Contains(t, rig.callLog(t), "DELETE FROM orders WHERE id = 2")
	})
	t.Run("Ctrl-C stops pg_sleep", func(t *testing.T) {
		run(t, scriptedCall{"query", sleepSQL}, "", nil, func(cmd *exec.Cmd) {
			waitUntil(t, "pg_sleep runs on the server", func() bool { return rig.sleeping(t) == 1 })
			ctrlC(t, cmd)
		})
		waitUntil(t, "pg_sleep is gone from pg_stat_activity after Ctrl-C", func() bool { return rig.sleeping(t) == 0 })
		waitUntil(t, "the cancelled call is in the call log", func() bool {
			log := rig.callLog(t)
			return strings.Contains(log, sleepSQL) && strings.Contains(log, `\"status\":\"cancelled\"`)
		})
	})
}

// testGemini drives Gemini CLI's `gemini -p` (the Gemini API). Headless,
// Gemini CLI offers an MCP tool only when it may run without a prompt,
// and it ignores readOnlyHint in deciding that: even the read-only query
// tool needs --allowed-tools (or "trust": true in the server's settings).
// So every run here names its one tool with --allowed-tools, the write
// too; that lets the call reach aiq, which still asks the user on its
// page, because Gemini CLI declares no elicitation. docs/mcp.md says the
// same to users.
func testGemini(t *testing.T) {
	rig := newHostRig(t, "@google/gemini-cli", "Gemini CLI host")
	model := newGeminiModel(t)
	userHome := t.TempDir()
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"mcpServers": map[string]any{"aiq": map[string]any{"command": binary, "args": []string{"mcp", "--home", rig.home.Dir},
			"env": map[string]string{"BROWSER": "$AIQ_TEST_BROWSER"}}},
	}
	data, err := json.Marshal(settings)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(userHome, ".gemini"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(userHome, ".gemini", "settings.json"), data, 0o600))

	run := func(t *testing.T, c scriptedCall, browser string, stop func(*exec.Cmd)) string {
		model.script(c)
		ctx, cancel := context.WithTimeout(context.Background(), 2*waitTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, rig.node, filepath.Join(rig.dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"),
			"-m", "test-model", "--allowed-tools", "mcp_aiq_"+c.tool, "-p", "Do what the scripted model says.")
		cmd.Dir = t.TempDir()
		cmd.Env = childEnv("HOME="+userHome, "GEMINI_API_KEY=test-key-never-used", "GOOGLE_GEMINI_BASE_URL="+model.srv.URL,
			"GEMINI_CLI_TRUST_WORKSPACE=true", "AIQ_TEST_BROWSER="+browser)
		cmd.WaitDelay = 10 * time.Second
		out := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		// Its own process group, as a terminal's foreground job: Ctrl-C
		// reaches the host and the servers it started.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		if stop != nil {
			stop(cmd)
		}
		err := cmd.Wait()
		if stop == nil {
			require.NoError(t, err, "gemini -p:\n%s", out.String())
		}
		return out.String()
	}

	t.Run("read through query", func(t *testing.T) {
		out := run(t, scriptedCall{"query", "SELECT count(*) AS n FROM orders WHERE status = 'delivered'"}, "", nil)
		outputs := model.callOutputs()
		require.Len(t, outputs, 1, "the host handed back the call's output:\n%s", out)
		assert.Contains(t, outputs[0], `| 2 |`)
		assert.Contains(t, rig.callLog(t), "status = 'delivered'")
	})
	// Gemini CLI declares no elicitation: aiq asks in the browser page.
	t.Run("write allowed in the browser page", func(t *testing.T) {
		browser, record := rig.browserEnv(t, "allow_once")
		run(t, scriptedCall{"execute_sql", "DELETE FROM orders WHERE id = 3"}, browser, nil)
		assert.Equal(t, "pressed allow_once\n", pageRecord(t, record), "the page was opened once and allowed")
		assert.Zero(t, dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders WHERE id = 3"), "the allowed DELETE ran")
		outputs := model.callOutputs()
		require.Len(t, outputs, 1)
		// Gemini CLI hands the model a success's text only, not its
		// structured content.
		assert.Contains(t, outputs[0], "Statement executed successfully. 1 row(s) affected.", "status success")
		assert.NotContains(t, outputs[0], "http://127.0.0.1", "the page's URL never reaches the model")
	})
	t.Run("write rejected in the browser page", func(t *testing.T) {
		browser, record := rig.browserEnv(t, "reject")
		before := dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders")
		run(t, scriptedCall{"execute_sql", "DELETE FROM orders WHERE id = 4"}, browser, nil)
		assert.Equal(t, "pressed reject\n", pageRecord(t, record))
		assert.Equal(t, before, dbtest.QueryInt(t, rig.pg, "SELECT count(*) FROM orders"), "the rejected DELETE did not run")
		outputs := model.callOutputs()
		require.Len(t, outputs, 1)
		assert.Contains(t, outputs[0], `\"status\":\"rejected\"`)
		assert.Contains(t, rig.callLog(t), "DELETE FROM orders WHERE id = 4")
	})
	t.Run("Ctrl-C stops pg_sleep", func(t *testing.T) {
		run(t, scriptedCall{"query", sleepSQL}, "", func(cmd *exec.Cmd) {
			waitUntil(t, "pg_sleep runs on the server", func() bool { return rig.sleeping(t) == 1 })
			ctrlC(t, cmd)
		})
		waitUntil(t, "pg_sleep is gone from pg_stat_activity after Ctrl-C", func() bool { return rig.sleeping(t) == 0 })
		waitUntil(t, "the cancelled call is in the call log", func() bool {
			log := rig.callLog(t)
			return strings.Contains(log, sleepSQL) && strings.Contains(log, `\"status\":\"cancelled\"`)
		})
	})
}
