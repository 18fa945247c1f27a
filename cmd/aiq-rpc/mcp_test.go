package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// mcpClientDir is the Node package that drives `aiq-rpc mcp` with the
// official MCP TypeScript SDK and the MCP Inspector's CLI.
const mcpClientDir = "../../rpc/mcp/testdata/client"

// mcpSourcesYAML names db (SQLite), pg and maria.
func mcpSourcesYAML(db, pg, maria sessionio.Source) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- name: db\n  type: sqlite\n  database: %q\n", db.Database)
	// In this order: the client checks that list_sources keeps the file's.
	for _, s := range []struct {
		name string
		src  sessionio.Source
	}{{"pg", pg}, {"maria", maria}} {
		fmt.Fprintf(&b, "- name: %s\n  type: %s\n  database: %q\n  host: %s\n  port: %d\n  username: %s\n  password: %q\n",
			s.name, s.src.Type, s.src.Database, s.src.Host, s.src.Port, s.src.Username, s.src.Password.Reveal())
	}
	return b.String()
}

// TestMCPClient runs rpc/mcp/testdata/client/client.mjs, a client built
// on the official MCP TypeScript SDK, against the built binary, on the
// demo database, a SQLite source and real PostgreSQL and MariaDB servers.
// The script checks what it sees; this test then checks the database, the
// log of the calls against the CLI's load rules, and that `aiq-rpc ask
// -s` continues it.
func TestMCPClient(t *testing.T) {
	node := findMCPClient(t)
	db := dbtest.SQLite(t)
	dbtest.Exec(t, db,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	h := home{Dir: t.TempDir()}
	h.writeFile(t, "config/sources.yaml", mcpSourcesYAML(db, dbtest.Postgres(t), dbtest.MariaDB(t)))
	demo := home{Dir: t.TempDir()}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = mcpClientDir
	browser, opened := testBrowser(t, "reject")
	cmd.Env = childEnv(append(browser, "AIQ_RPC="+binary, "AIQ_TEST_HOME="+h.Dir, "AIQ_TEST_DEMO_HOME="+demo.Dir)...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the MCP client failed:\n%s", out)
	t.Logf("the MCP client:\n%s", out)
	assert.NotContains(t, string(out), dbtest.Password)
	assert.NotContains(t, string(out), "DATA RACE")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var result struct {
		OK bool `json:"ok"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &result), "the client's last line is not its result")
	require.True(t, result.OK)
	assert.EqualValues(t, 3, dbtest.QueryInt(t, db, "SELECT count(*) FROM orders"), "only the allowed DELETE ran")
	// The page is opened for the one DELETE the client declined at once;
	// on a machine so busy that the decline took a person's time (100 ms)
	// it counts as the user's, and no page opens. Either way the user
	// declined it, as the client checked.
	pages := opened()
	assert.LessOrEqual(t, len(pages), 1, "at most one page: %v", pages)
	if len(pages) == 0 {
		t.Log("the instant decline took over 100 ms on this machine, so no page was opened")
	}
	for _, p := range pages {
		assert.NotContains(t, string(out), p[strings.LastIndex(p, "/"):], "the client never sees the page's secret")
	}
	assert.Zero(t, dbtest.QueryInt(t, db, "SELECT count(*) FROM orders WHERE id = 1"))

	// The log of the calls on db: the CLI loads it, and aiq-rpc ask
	// continues it.
	logs, err := filepath.Glob(filepath.Join(h.sessionsDir(), "mcp_*_db.json"))
	require.NoError(t, err)
	require.Len(t, logs, 1, "the log of the calls on db")
	data, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	assert.Contains(t, string(data), "DELETE FROM orders WHERE id = 1")
	assert.Contains(t, string(data), "the user declined this statement")
	assert.NotContains(t, string(data), dbtest.Password)

	ask := exec.CommandContext(ctx, binary, "ask", "--home", h.Dir, "-s", logs[0], "SELECT count(*) AS left_over FROM orders")
	ask.Env = childEnv()
	answer, err := ask.CombinedOutput()
	require.NoError(t, err, "aiq-rpc ask -s did not continue the MCP log:\n%s", answer)
	assert.Contains(t, string(answer), "left_over")
	assert.NotContains(t, string(answer), "could not be restored")
	assert.Contains(t, string(answer), "aiq -s "+logs[0])
}

// TestMCPInspector: the MCP Inspector's CLI, a client nobody here wrote,
// lists the tools of the built binary and calls list_tables.
func TestMCPInspector(t *testing.T) {
	node := findMCPClient(t)
	inspector := filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	demo := home{Dir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := func(args ...string) string {
		args = append([]string{inspector, "--cli"}, args...)
		args = append(args, binary, "mcp", "--home", demo.Dir)
		cmd := exec.CommandContext(ctx, node, args...)
		// The Inspector keeps a catalog of servers in the home folder.
		cmd.Env = childEnv("MCP_CATALOG_PATH=" + filepath.Join(t.TempDir(), "catalog.json"))
		cmd.WaitDelay = 5 * time.Second
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "the Inspector failed:\n%s\n%s", stdout.String(), stderr.String())
		return stdout.String()
	}

	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	out := run("--method", "tools/list")
	require.NoError(t, json.Unmarshal([]byte(out), &list), "tools/list:\n%s", out)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		assert.Equal(t, false, tool.Annotations["openWorldHint"], tool.Name)
	}
	assert.ElementsMatch(t, []string{"list_sources", "list_tables", "describe_table", "search_schema", "profile_column", "explain_sql", "query", "execute_sql"}, names)

	var res struct {
		StructuredContent struct {
			Source string   `json:"source"`
			Tables []string `json:"tables"`
		} `json:"structuredContent"`
		IsError bool `json:"isError"`
	}
	out = run("--method", "tools/call", "--tool-name", "list_tables")
	require.NoError(t, json.Unmarshal([]byte(out), &res), "tools/call:\n%s", out)
	assert.False(t, res.IsError)
	assert.Equal(t, "demo", res.StructuredContent.Source)
	assert.Contains(t, res.StructuredContent.Tables, "customers")
}

// TestMCPBinary: the built binary's stdout carries MCP messages only; a
// line that is not one, or is over 16 MiB, is answered and skipped; the
// end of input is a clean exit.
func TestMCPBinary(t *testing.T) {
	h := newHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--home", h.Dir, "--source", "local")
	cmd.Env = childEnv()
	in := "this is not json\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		"[1,2]\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_sql","arguments":{"sql":"` + strings.Repeat("x", 17<<20) + `"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_sources","arguments":{}}}` + "\n"
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stdout, stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	go io.WriteString(stdin, in)
	// The input ends once the last call is answered: its end would cancel
	// a call still running.
	lines := bufio.NewScanner(pipe)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		stdout.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), `"id":3,`) {
			break
		}
	}
	require.NoError(t, stdin.Close())
	rest, _ := io.ReadAll(pipe)
	stdout.Write(rest)
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	answers := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), "stdout holds a line that is not a message: %.200q", line)
		code := "result"
		if msg.Error != nil {
			code = fmt.Sprint(msg.Error.Code)
		}
		answers[string(msg.ID)] += code + " "
	}
	assert.Equal(t, map[string]string{"null": "-32700 -32600 -32600 ", "1": "result ", "3": "result "}, answers, "stdout:\n%.2000s", stdout.String())
	assert.Contains(t, stdout.String(), `"name":"shop"`)
	assert.NotContains(t, stdout.String(), testPassword)
	assert.Contains(t, stderr.String(), "malformed message")

	extra := exec.CommandContext(ctx, binary, "mcp", "--home", h.Dir, "now")
	extra.Env = childEnv()
	out, err := extra.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), `unexpected argument "now"`)

	session := exec.CommandContext(ctx, binary, "mcp", "--home", h.Dir, "-s", "x.json")
	session.Env = childEnv()
	out, err = session.CombinedOutput()
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), "-s/--session is not used here")
}

// TestMCPNoCallLog: the built binary logs a call in the sessions folder,
// and with --no-call-log it does not.
func TestMCPNoCallLog(t *testing.T) {
	for _, c := range []struct {
		flags []string
		logs  int
	}{{nil, 1}, {[]string{"--no-call-log"}, 0}} {
		h := newHome(t)
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, append([]string{"mcp", "--home", h.Dir, "--source", "local"}, c.flags...)...)
		cmd.Env = childEnv()
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_sql","arguments":{"sql":"SELECT 1 AS one"}}}`+"\n")
		require.NoError(t, err)
		// The end of input cancels the calls still running: it comes once
		// the call is answered.
		lines := bufio.NewScanner(stdout)
		answered := false
		for !answered && lines.Scan() {
			answered = strings.Contains(lines.Text(), `"id":2,"result"`)
		}
		if !answered {
			cmd.Wait() // stderr is read only once the process is done with it
			t.Fatalf("the call was not answered; stderr:\n%s", stderr.String())
		}
		require.NoError(t, stdin.Close())
		io.Copy(io.Discard, stdout)
		require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
		logs, err := filepath.Glob(filepath.Join(h.Dir, "sessions", "mcp_*.json"))
		require.NoError(t, err)
		assert.Len(t, logs, c.logs, "flags %v: logs %v", c.flags, logs)
	}
}
