package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// runServe serves JSON-RPC on stdin and stdout until the client leaves.
func runServe(ctx context.Context, e env, f flags) int {
	a, err := setup(ctx, e, f, setupOptions{})
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: %v\n", err)
		return 1
	}
	defer a.close()
	if isTerminal(e.stdin) {
		// Someone typed aiq-rpc in a shell: say what it is for, and serve
		// anyway, as gopls does.
		fmt.Fprintln(e.stderr, "aiq-rpc speaks JSON-RPC on stdin and stdout for editors (docs/protocol.md); "+
			"to ask a question here, run 'aiq-rpc ask QUESTION'. Press Ctrl-D to stop.")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// An editor that closed our stdout must not kill us before the sessions
	// are saved: the failed write ends the connection instead.
	signal.Ignore(syscall.SIGPIPE)
	// An idle editor hears of a changed config.yaml or sources.yaml too.
	defer a.live.watch(ctx, watchInterval)()
	stdin, restore := pollable(e.stdin)
	defer restore()
	return a.server.Serve(ctx, stdin, nopCloser{e.stdout})
}
