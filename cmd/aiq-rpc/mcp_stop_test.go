package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// stopBound is how soon after the host goes away its statement must be
// gone from the database server, and the server must have exited: 2 s, as
// issue 29 asks. Measured on an idle machine: 4-138 ms after a signal,
// 1.05-1.13 s after a closed input (the server's endGrace of 1 s, which
// lets a script that closes its end get the answers of quick calls).
//
// stopMargin is what the test allows on top, 3 s (5 s in all), because CI
// runs it under stress-ng --cpu 2 on two cores, where the server, the
// database and each poll of it wait for a CPU. A statement left to run to
// its timeout, or a grace of minutes, still fails.
const (
	stopBound  = 2 * time.Second
	stopMargin = 3 * time.Second
)

// TestMCPStopsWithTheHost: when the host goes away in any of the ways
// hosts do (SIGTERM, SIGINT as Ctrl-C sends it, or closing the server's
// input), a long statement is stopped on its server at once rather than
// left to run to the statement timeout: it is gone within stopBound (with
// stopMargin for a loaded machine), the server exits as soon, and the
// call is in the log with its status, cancelled.
func TestMCPStopsWithTheHost(t *testing.T) {
	for _, db := range []struct {
		name    string
		src     func(testing.TB) sessionio.Source
		sleep   string // a statement that runs 10 minutes, with %s for a tag
		running string // counts the statements of that text running
	}{
		{"postgresql", dbtest.Postgres, "SELECT pg_sleep(600) AS %s",
			"SELECT count(*) FROM pg_stat_activity WHERE query = '%s'"},
		{"mariadb", dbtest.MariaDB, "SELECT SLEEP(600) AS %s",
			"SELECT count(*) FROM information_schema.processlist WHERE info = '%s'"},
	} {
		src := db.src(t)
		for _, way := range []struct {
			name string
			stop func(p *mcpProc)
		}{
			{"sigterm", func(p *mcpProc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM)) }},
			{"sigint", func(p *mcpProc) { require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT)) }},
			{"stdin_closed", func(p *mcpProc) { require.NoError(t, p.stdin.Close()) }},
		} {
			t.Run(db.name+"/"+way.name, func(t *testing.T) {
				stmt := strings.Replace(db.sleep, "%s", way.name, 1)
				running := strings.Replace(db.running, "%s", stmt, 1)
				h := home{Dir: t.TempDir()}
				h.writeFile(t, "config/sources.yaml", sourcesYAML(src))
				// The statement would run far longer than the test waits
				// for it to go.
				p := startMCP(t, h, nil, "--source", "db", "--statement-timeout", "15m")

				called := make(chan *sdk.CallToolResult, 1)
				go func() {
					res, _ := p.session.CallTool(context.Background(), &sdk.CallToolParams{Name: "query",
						Arguments: map[string]any{"sql": stmt}})
					called <- res
				}()
				waitFor(t, func() bool { return dbtest.QueryInt(t, src, running) == 1 }, stmt+" never showed on the server")

				stopped := time.Now()
				way.stop(p)
				waitFor(t, func() bool { return dbtest.QueryInt(t, src, running) == 0 },
					stmt+" still runs on the server after "+way.name)
				gone := time.Since(stopped)
				select {
				case <-p.done:
				case <-time.After(waitTimeout):
					t.Fatalf("aiq-rpc mcp did not exit after %s; stderr:\n%s", way.name, p.stderr.String())
				}
				exited := time.Since(stopped)
				t.Logf("after %s: the statement was gone within %v, the server exited within %v", way.name,
					gone.Round(time.Millisecond), exited.Round(time.Millisecond))
				assert.LessOrEqual(t, gone, stopBound+stopMargin, "the statement is gone from the server within %v of %s (%v allowed for a loaded machine)",
					stopBound, way.name, stopMargin)
				assert.LessOrEqual(t, exited, stopBound+stopMargin, "the server exits within %v of %s (%v allowed for a loaded machine)",
					stopBound, way.name, stopMargin)
				assert.Zero(t, p.cmd.ProcessState.ExitCode(), "a host that goes away is a normal end; stderr:\n%s", p.stderr.String())
				if res := <-called; res != nil {
					// The end of input still answers the call: cancelled.
					assert.True(t, res.IsError)
					assert.Contains(t, textOf(res), "cancelled")
				}

				logs, err := filepath.Glob(filepath.Join(h.sessionsDir(), "mcp_*_db.json"))
				require.NoError(t, err)
				require.Len(t, logs, 1, "the call is logged")
				data, err := os.ReadFile(logs[0])
				require.NoError(t, err)
				assert.Contains(t, string(data), stmt)
				assert.Contains(t, string(data), `\"status\":\"cancelled\"`, "the log says the call was cancelled")
			})
		}
	}
}

// mcpProc is `aiq-rpc mcp` driven by the Go SDK's client over pipes the
// test holds, so that it can close the server's input or signal it.
type mcpProc struct {
	cmd     *exec.Cmd
	stdin   *os.File
	session *sdk.ClientSession
	stdout  *syncBuffer // every message the server sent
	stderr  *syncBuffer
	done    chan struct{}
}

// startMCP starts aiq-rpc mcp on h, with env added to its environment,
// and connects a client without elicitation. The child is killed when the
// test ends if it still runs.
func startMCP(t *testing.T, h home, env []string, args ...string) *mcpProc {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp", "--home", h.Dir}, args...)...)
	cmd.Env = childEnv(env...)
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	p := &mcpProc{cmd: cmd, stdin: inW, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	require.NoError(t, cmd.Start())
	inR.Close()
	outW.Close()
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		inW.Close()
		outR.Close()
		if t.Failed() {
			t.Logf("stderr of aiq-rpc mcp:\n%s", p.stderr.String())
		}
		assertNoRace(t, p.stderr.String())
	})
	client := sdk.NewClient(&sdk.Implementation{Name: "stop-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	p.session, err = client.Connect(ctx, &sdk.IOTransport{Reader: io.NopCloser(io.TeeReader(outR, p.stdout)), Writer: keepOpen{inW}}, nil)
	require.NoError(t, err)
	return p
}

// keepOpen keeps the client's Close from closing the server's input,
// which the test closes itself when it means to.
type keepOpen struct{ *os.File }

func (keepOpen) Close() error { return nil }

// waitFor polls cond until it holds, failing the test with msg when it
// does not within waitTimeout.
func waitFor(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s within %v", msg, waitTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// textOf is the text of a tool result.
func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
