package main

import (
	"context"
	"os/exec"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// BenchmarkSelectOneRoundTrip is one SELECT 1 through the binary's pipes,
// request to response, on the same SQLite source: as an MCP execute_sql
// tool call (with and without its log of the call), and as a chat/turn of
// the JSON-RPC front end, which runs a statement directly when no model is
// configured (with its autosave).
func BenchmarkSelectOneRoundTrip(b *testing.B) {
	src := dbtest.SQLite(b)
	// A fresh home per run: the log and the session start empty.
	newHome := func(b *testing.B) home {
		h := home{Dir: b.TempDir()}
		h.writeFile(b, "config/sources.yaml", sourcesYAML(src))
		return h
	}
	b.Run("mcp", func(b *testing.B) { benchMCPSelectOne(b, newHome(b), 0) })
	// A log that already holds a day's worth of calls costs the same to
	// add to.
	b.Run("mcp-after-1000-calls", func(b *testing.B) { benchMCPSelectOne(b, newHome(b), 1000) })
	b.Run("mcp-no-call-log", func(b *testing.B) { benchMCPSelectOne(b, newHome(b), 0, "--no-call-log") })
	b.Run("jsonrpc", func(b *testing.B) {
		h := newHome(b)
		p := startProc(b, h, procOptions{plain: true, args: []string{"--source", "db"}})
		p.initialize(nil)
		var info conversation.Info
		p.client.Result("session/new", nil, &info)
		for b.Loop() {
			var ans conversation.Answer
			p.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "SELECT 1"}, &ans)
			if len(ans.Statements) != 1 || ans.Statements[0].Status != "success" {
				b.Fatalf("chat/turn: %+v", ans)
			}
		}
	})
}

// benchMCPSelectOne measures SELECT 1 through `aiq-rpc mcp` after before
// calls that are not measured.
func benchMCPSelectOne(b *testing.B, h home, before int, extra ...string) {
	ctx := context.Background()
	cmd := exec.Command(plainBinary, append([]string{"mcp", "--home", h.Dir, "--source", "db"}, extra...)...)
	cmd.Env = childEnv()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT 1"}}
	for range before {
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			b.Fatalf("execute_sql: %v %v", err, res)
		}
	}
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("execute_sql: %v %v", err, res)
		}
	}
}
