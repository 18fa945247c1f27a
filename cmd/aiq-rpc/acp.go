package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/aiq/aiq-rpc/rpc/acp"
)

// runACP speaks the Agent Client Protocol on stdin and stdout, for the
// editors that spawn an ACP agent (docs/acp.md). -s FILE is the session
// the first session/new continues.
func runACP(ctx context.Context, e env, f flags, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "aiq-rpc acp: unexpected argument %q; it takes only flags (run 'aiq-rpc acp --help')\n", args[0])
		return 2
	}
	resume := f.session
	f.session = ""
	a, err := setup(ctx, e, f, setupOptions{})
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: %v\n", err)
		return 1
	}
	defer a.close()
	a.log.Info("aiq-rpc started", "version", version(), "front", "acp", "home", a.home.Dir)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	signal.Ignore(syscall.SIGPIPE) // as runServe: save the sessions, then stop
	agent := acp.New(a.ws, acp.Options{Name: "aiq-rpc", Version: version(), Home: a.home, Resume: resume, Log: a.log,
		CheckConfig: a.live.check})
	a.live.subscribe(func(ch configChange) { agent.ConfigProblems(ch.Problems) })
	stdin, restore := pollable(e.stdin)
	defer restore()
	if err := agent.Serve(ctx, stdin, e.stdout); err != nil {
		a.log.Error("acp", "err", err)
		return 1
	}
	return 0
}
