package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/aiq/aiq-rpc/rpc/mcp"
)

// mcpFlags are the flags of aiq-rpc mcp on top of the common ones.
func mcpFlags(fs *flag.FlagSet, f *flags) {
	f.confirmTimeout = mcp.DefaultConfirmTimeout
	fs.Var(durationFlag{&f.confirmTimeout}, "confirm-timeout", "reject a write the user has not answered within `DURATION`")
	fs.BoolVar(&f.noCallLog, "no-call-log", false, "do not log the calls in mcp_YYYYMMDD_<source>.json in the sessions folder")
	fs.BoolVar(&f.noBrowserConfirm, "no-browser-confirm", false,
		"do not ask the user in a page in their browser when the client cannot ask them; such a client's writes are refused")
}

// runMCP serves aiq's SQL tools over the Model Context Protocol on stdin
// and stdout, for the agent an editor already has (docs/mcp.md).
func runMCP(ctx context.Context, e env, f flags, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "aiq-rpc mcp: unexpected argument %q; it takes only flags (run 'aiq-rpc mcp --help')\n", args[0])
		return 2
	}
	if f.session != "" {
		fmt.Fprintln(e.stderr, "aiq-rpc mcp: -s/--session is not used here: MCP has no conversation to continue; the calls are logged in the sessions folder instead")
		return 2
	}
	a, err := setup(ctx, e, f, setupOptions{})
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: %v\n", err)
		return 1
	}
	defer a.close()
	a.log.Info("aiq-rpc started", "version", version(), "front", "mcp", "home", a.home.Dir)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGPIPE)
	server := mcp.New(a.ws, mcp.Options{Name: "aiq-rpc", Version: version(), Home: a.home,
		ConfirmTimeout: f.confirmTimeout, NoLog: f.noCallLog, Log: a.log,
		NoBrowserConfirm: f.noBrowserConfirm, Getenv: e.getenv})
	stdin, restore := pollable(e.stdin)
	defer restore()
	if err := server.Serve(ctx, stdin, e.stdout); err != nil && ctx.Err() == nil {
		a.log.Error("mcp", "err", err)
		return 1
	}
	return 0
}
