package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// acpClientDir is the Node package that drives `aiq-rpc acp` with the
// official ACP TypeScript SDK.
const acpClientDir = "../../rpc/acp/testdata/client"

// TestACPClient runs rpc/acp/testdata/client/client.mjs, a client built on
// the official ACP TypeScript SDK, against the built binary, with the
// scripted model and a SQLite source. The script checks what it sees and
// prints the path of the session it saved; this test then checks the
// database, the file against the CLI's load rules, and that `aiq-rpc ask
// -s` continues it.
func TestACPClient(t *testing.T) {
	node := findACPClient(t)
	tmp := t.TempDir()
	model := llmtest.NewServer(t)
	for range 40 {
		model.Add(llmtest.Step{Respond: acpScript(tmp)})
	}
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	h := home{Dir: t.TempDir()}.withModel(t, model.URL)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
	cli := filepath.Join(tmp, "cli-db-mode.session.json")
	require.NoError(t, os.WriteFile(cli, sessiontest.CLIFiles()["cli-db-mode.session.json"], 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 2*waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = acpClientDir
	cmd.Env = childEnv("AIQ_RPC="+binary, "AIQ_TEST_HOME="+h.Dir, "AIQ_TEST_TMP="+tmp, "AIQ_TEST_CLI_SESSION="+cli)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the ACP client failed:\n%s", out)
	t.Logf("the ACP client:\n%s", out)
	assert.NotContains(t, string(out), testAPIKey)

	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var result struct {
		Saved string `json:"saved"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &result), "the client's last line is not its result")
	assert.Zero(t, dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE id = 100"), "the rejected write ran")
	assert.EqualValues(t, 1, dbtest.QueryInt(t, src, "SELECT count(*) FROM orders WHERE id = 101"), "the allowed write did not run")

	data, err := os.ReadFile(result.Saved)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))

	ask := exec.CommandContext(ctx, binary, "ask", "--home", h.Dir, "-s", result.Saved, "how many orders now?")
	ask.Env = childEnv()
	answer, err := ask.CombinedOutput()
	require.NoError(t, err, "aiq-rpc ask -s did not continue the ACP session:\n%s", answer)
	assert.Contains(t, string(answer), "There are five orders.")
	assert.Contains(t, string(answer), "Continue it with 'aiq -s "+result.Saved+"'")
	// The model saw the ACP session's earlier turn.
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	var history []string
	for _, m := range last.Messages {
		history = append(history, m.Content)
	}
	assert.Contains(t, strings.Join(history, "\n"), "add order 101")
}

// acpScript answers the client script's questions by their text, and the
// tool results by their call.
func acpScript(tmp string) func(req llmtest.Request) llmtest.Step {
	return func(req llmtest.Request) llmtest.Step {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			switch last.ToolCallID {
			case "call_count":
				// Paced longer than a frame, as a real model streams: text that
				// arrives at once is sent as one chunk, and the client checks
				// that the answer streams.
				return llmtest.Step{Text: "Two are delivered, one is pending and one shipped.", Pace: 25 * time.Millisecond}
			case "call_100":
				return llmtest.Step{Text: "Order 100 was not added."}
			case "call_101":
				return llmtest.Step{Text: "Order 101 was added."}
			}
			return llmtest.Step{Text: "Done."}
		}
		q := last.Content
		switch {
		case strings.HasPrefix(q, "what does this do?"):
			return sqlCall("call_count", "SELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status")
		case strings.HasPrefix(q, "add order 100"):
			return sqlCall("call_100", "INSERT INTO orders VALUES (100, 'new')")
		case strings.HasPrefix(q, "add order 101"):
			return sqlCall("call_101", "INSERT INTO orders VALUES (101, 'new')")
		case strings.HasPrefix(q, "hold this answer too"):
			os.WriteFile(filepath.Join(tmp, "held2"), nil, 0o600)
			return llmtest.Step{Hold: true}
		case strings.HasPrefix(q, "hold"):
			os.WriteFile(filepath.Join(tmp, "held"), nil, 0o600)
			return llmtest.Step{Hold: true}
		case strings.HasPrefix(q, "how many orders now?"):
			return llmtest.Step{Text: "There are five orders."}
		}
		return llmtest.Step{Text: "I was not scripted for: " + q}
	}
}

// TestACPBinary: the built binary's stdout carries ACP frames only, a bad
// line among them is answered, and the end of input is a clean exit.
func TestACPBinary(t *testing.T) {
	h := newHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "acp", "--home", h.Dir)
	cmd.Env = childEnv()
	// The input ends right after the requests: they are answered all the
	// same, and the session made and never used leaves no file.
	cmd.Stdin = strings.NewReader("this is not json\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}` + "\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr:\n%s", stderr.String())
	answered := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), "stdout holds a line that is not a frame: %q", line)
		answered[string(msg.ID)] = true
	}
	delete(answered, "") // notifications, such as the session's commands
	assert.Equal(t, map[string]bool{"null": true, "1": true, "2": true}, answered, "stdout:\n%s", stdout.String())
	assert.Contains(t, stdout.String(), `"code":-32700`)
	assert.Contains(t, stdout.String(), `"title":"AIQ"`)
	assert.Contains(t, stderr.String(), "malformed message", "the bad line was not logged on stderr")
	assert.Empty(t, h.sessionFiles(t), "the unused session left its file")

	extra := exec.CommandContext(ctx, binary, "acp", "--home", h.Dir, "now")
	extra.Env = childEnv()
	out, err := extra.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), `unexpected argument "now"`)
}
