// Command aiq-rpc is the backend of the AIQ editor chat panels: editors
// spawn it and speak JSON-RPC over its stdin and stdout (docs/protocol.md).
// "aiq-rpc ask" runs one turn in the terminal through the same server, and
// "aiq-rpc sessions" lists the saved sessions.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/aiq/aiq-rpc/conversation/llm"
)

const usage = `aiq-rpc: ask your SQL database questions from your editor.

Usage:
  aiq-rpc [flags]                 serve JSON-RPC on stdin and stdout (editors run this)
  aiq-rpc ask [flags] QUESTION    run one turn in the terminal; QUESTION "-" reads stdin
  aiq-rpc sessions [flags]        list the saved sessions, newest first
  aiq-rpc acp [flags]             serve the Agent Client Protocol (Zed, JetBrains, ...)

Flags:
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// env is what a command gets from its process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	cmd := "serve"
	if len(args) > 0 && (args[0] == "ask" || args[0] == "sessions" || args[0] == "acp") {
		cmd, args = args[0], args[1:]
	}
	var f flags
	fs := f.flagSet(cmd, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if f.version {
		fmt.Fprintln(stdout, "aiq-rpc", version())
		return 0
	}
	switch cmd {
	case "ask":
		return runAsk(ctx, e, f, fs.Args())
	case "sessions":
		return runSessions(e, f)
	case "acp":
		return runACP(ctx, e, f, fs.Args())
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "aiq-rpc: unknown command %q; run 'aiq-rpc --help'\n", fs.Arg(0))
		return 2
	}
	return runServe(ctx, e, f)
}

// flags are the flags of every command.
type flags struct {
	session      string
	source       string
	home         string
	historyLimit int
	logFile      string
	version      bool
	json         bool
	modelTimeout time.Duration
	sqlTimeout   time.Duration
}

func (f *flags) flagSet(cmd string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("aiq-rpc "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.session, "s", "", "restore the session in `FILE` as the default session")
	fs.StringVar(&f.session, "session", "", "restore the session in `FILE` as the default session")
	fs.StringVar(&f.source, "source", "", "the data source `NAME` of new sessions")
	fs.StringVar(&f.home, "home", "", "the AIQ home `DIR` (default $AIQ_HOME, else ~/.aiq)")
	fs.IntVar(&f.historyLimit, "history-limit", 0, "keep the last `N` turns of each session (default 20)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs to `PATH` instead of stderr")
	fs.DurationVar(&f.modelTimeout, "model-timeout", llm.DefaultTimeout, "give up on a model that sends nothing for `DURATION`")
	fs.DurationVar(&f.sqlTimeout, "statement-timeout", 30*time.Second, "stop a SQL statement that runs longer than `DURATION`")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	if cmd == "ask" {
		fs.BoolVar(&f.json, "json", false, "print the turn's result as JSON")
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
