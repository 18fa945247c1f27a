package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// frontEnd opens and closes sessions in a running aiq-rpc, and runs turns.
type frontEnd struct {
	pid   int
	load  func(path string) (id string)
	close func(id string)
	new   func() (id string)
	turn  func(id, query string)
}

// TestMemoryGivenBack opens twenty 10 MiB sessions in aiq-rpc, closes
// them all, and reads the server's resident memory in /proc: it comes back
// within 1.5 times what the server held idle, plus 20 MiB. Both front ends;
// the binary without the race detector, whose shadow memory is not the
// server's. The deadline only stops a server that never gives memory back;
// the time it took is logged, and docs/performance.md reports it.
func TestMemoryGivenBack(t *testing.T) {
	t.Parallel() // it waits on the server mostly; the others need not wait for it
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc/self/status here (%v): resident memory cannot be read", err)
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "large-00.session.json")
	require.NoError(t, os.WriteFile(first, sessiontest.GenerateCLIFile(10<<20), 0o600))
	info, err := os.Stat(first)
	require.NoError(t, err)
	paths := []string{first}
	for i := 1; i < 20; i++ {
		path := filepath.Join(dir, fmt.Sprintf("large-%02d.session.json", i))
		require.NoError(t, os.Link(first, path)) // a path each: ACP's session id
		paths = append(paths, path)
	}
	for _, name := range []string{"jsonrpc", "acp"} {
		t.Run(name, func(t *testing.T) {
			var fe frontEnd
			if name == "acp" {
				fe = startACPFrontEnd(t, newHome(t))
			} else {
				fe = startJSONRPCFrontEnd(t, newHome(t))
			}
			idle := residentMemory(t, fe.pid, "VmRSS")
			var ids []string
			for i, path := range paths {
				ids = append(ids, fe.load(path))
				if i == 0 {
					one := settledMemory(t, fe.pid) - idle
					t.Logf("one open session: %.1f MiB more than idle, %.2f times its %.1f MiB file",
						mib(one), float64(one)/float64(info.Size()), mib(info.Size()))
				}
			}
			open := settledMemory(t, fe.pid)
			for _, id := range ids {
				fe.close(id)
			}
			closed := time.Now()
			bound := idle*3/2 + 20<<20
			rss := residentMemory(t, fe.pid, "VmRSS")
			for rss > bound && time.Since(closed) < waitTimeout {
				time.Sleep(50 * time.Millisecond)
				rss = residentMemory(t, fe.pid, "VmRSS")
			}
			t.Logf("idle %.1f MiB; twenty open %.1f MiB (peak %.1f MiB); %.1f MiB %v after closing them",
				mib(idle), mib(open), mib(residentMemory(t, fe.pid, "VmHWM")), mib(rss), time.Since(closed).Round(time.Millisecond))
			assert.LessOrEqual(t, rss, bound, "resident memory after closing the sessions: %.1f MiB, want at most %.1f MiB", mib(rss), mib(bound))
		})
	}
}

// settledMemory is the resident memory once it has stopped falling for
// half a second, or after ten seconds: what the server holds once it has
// given back what it gives back.
func settledMemory(t testing.TB, pid int) int64 {
	t.Helper()
	low, since, start := residentMemory(t, pid, "VmRSS"), time.Now(), time.Now()
	for time.Since(since) < 500*time.Millisecond && time.Since(start) < 10*time.Second {
		time.Sleep(20 * time.Millisecond)
		if rss := residentMemory(t, pid, "VmRSS"); rss < low-(256<<10) {
			low, since = rss, time.Now()
		}
	}
	return low
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// residentMemory reads a field of /proc/PID/status given in kB (VmRSS, the
// resident memory now; VmHWM, its peak) and returns it in bytes.
func residentMemory(t testing.TB, pid int, field string) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// BenchmarkTurnMemory runs the same turns (a question, an answer of about
// 2 KB) through each front end in one session (trimmed to the default
// history limit), and reports the server's resident memory at the end and
// at its peak, in MiB.
//
//	go test -run '^$' -bench TurnMemory -benchtime 300x -count 2 ./cmd/aiq-rpc/
func BenchmarkTurnMemory(b *testing.B) {
	for _, name := range []string{"jsonrpc", "acp"} {
		b.Run(name, func(b *testing.B) {
			srv := llmtest.NewServer(b)
			h := newHome(b).withModel(b, srv.URL)
			var fe frontEnd
			if name == "acp" {
				fe = startACPFrontEnd(b, h)
			} else {
				fe = startJSONRPCFrontEnd(b, h)
			}
			id := fe.new()
			n := 0
			for b.Loop() {
				srv.Add(llmtest.Step{Text: fmt.Sprintf("%d. %s", n, autosaveAnswer)})
				fe.turn(id, fmt.Sprintf("question %d: how were last week's orders paid?", n))
				n++
			}
			b.StopTimer()
			b.ReportMetric(mib(settledMemory(b, fe.pid)), "rss-MiB")
			b.ReportMetric(mib(residentMemory(b, fe.pid, "VmHWM")), "peak-MiB")
		})
	}
}

func startJSONRPCFrontEnd(t testing.TB, h home) frontEnd {
	p := startProc(t, h, procOptions{plain: true})
	p.client.Result("initialize", map[string]any{}, nil)
	return frontEnd{
		pid: p.cmd.Process.Pid,
		load: func(path string) string {
			var info conversation.LoadInfo
			p.client.Result("session/load", map[string]string{"path": path}, &info)
			return info.SessionID
		},
		close: func(id string) {
			p.client.Result("session/close", map[string]string{"sessionId": id}, nil)
		},
		new: func() string {
			var info conversation.Info
			p.client.Result("session/new", nil, &info)
			return info.SessionID
		},
		turn: func(id, query string) {
			p.client.Result("chat/turn", map[string]any{"sessionId": id, "query": query}, nil)
		},
	}
}

// startACPFrontEnd runs `aiq-rpc acp` and speaks its newline-delimited JSON-RPC
// by hand: requests out, and of what comes back, the responses.
func startACPFrontEnd(t testing.TB, h home) frontEnd {
	cmd := exec.Command(plainBinary, "acp", "--home", h.Dir)
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("stderr of aiq-rpc acp:\n%s", stderr.String())
		}
	})
	type response struct {
		ID     int             `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	responses := make(chan response, 1)
	go func() {
		defer close(responses)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if bytes.Contains(line[:min(len(line), 48)], []byte(`"method"`)) {
				continue // a notification or a request: the replay sends thousands
			}
			var m response
			if json.Unmarshal(line, &m) == nil && m.Method == "" {
				responses <- m
			}
		}
	}()
	next := 0
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		next++
		req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": next, "method": method, "params": params})
		require.NoError(t, err)
		_, err = io.WriteString(stdin, string(req)+"\n")
		require.NoError(t, err)
		select {
		case m, ok := <-responses:
			require.True(t, ok, "aiq-rpc acp ended its output before answering %s", method)
			require.Equal(t, next, m.ID, "the response to %s", method)
			require.Empty(t, m.Error, "%s", method)
			return m.Result
		case <-time.After(waitTimeout):
			t.Fatalf("no answer to %s within %v", method, waitTimeout)
			return nil
		}
	}
	call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	return frontEnd{
		pid: cmd.Process.Pid,
		load: func(path string) string {
			call("session/load", map[string]any{"sessionId": path, "cwd": filepath.Dir(path), "mcpServers": []any{}})
			return path
		},
		close: func(id string) {
			call("session/close", map[string]any{"sessionId": id})
		},
		new: func() string {
			var res struct {
				SessionID string `json:"sessionId"`
			}
			require.NoError(t, json.Unmarshal(call("session/new", map[string]any{"cwd": h.Dir, "mcpServers": []any{}}), &res))
			return res.SessionID
		},
		turn: func(id, query string) {
			call("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": query}}})
		},
	}
}
