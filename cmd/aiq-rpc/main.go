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
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiq/aiq-rpc/conversation/llm"
)

// command is one subcommand of aiq-rpc. Without one, aiq-rpc serves
// JSON-RPC on stdin and stdout.
type command struct {
	name    string
	args    string // what follows the name in the usage line
	summary string
	// flags adds the command's own flags to the common ones; nil for none.
	flags func(fs *flag.FlagSet, f *flags)
	run   func(ctx context.Context, e env, f flags, args []string) int
}

// commands are the subcommands, in the order the usage lists them.
func commands() []command {
	return []command{
		{name: "ask", args: "[flags] QUESTION", summary: `run one turn in the terminal; QUESTION "-" reads stdin`, flags: askFlags, run: runAsk},
		{name: "sessions", args: "[flags]", summary: "list the saved sessions, newest first", run: runSessions},
		{name: "acp", args: "[flags]", summary: "serve the Agent Client Protocol on stdin and stdout (Zed, JetBrains, ...)", run: runACP},
		{name: "mcp", args: "[flags]", summary: "serve aiq's SQL tools over MCP on stdin and stdout (Copilot, Cursor, Claude Code, ...)", flags: mcpFlags, run: runMCP},
		{name: "doctor", args: "[flags]", summary: "check the home folder, the model endpoint and the data sources, one line each", flags: doctorFlags, run: runDoctor},
	}
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// env is what a command gets from its process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// run parses the command line as git and go do: the common flags may come
// before the command (aiq-rpc --home X ask ...) or after it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	var global flags
	gfs := global.flagSet(nil)
	if code, ok := parseFlags(gfs, "aiq-rpc", args, e); !ok {
		return code
	}
	if gfs.NArg() == 0 {
		if global.version {
			return printVersion(e)
		}
		return profiled(e, global, func() int { return runServe(ctx, e, global) })
	}
	cmd, ok := findCommand(gfs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "aiq-rpc: unknown command %q; run 'aiq-rpc --help' for the commands\n", gfs.Arg(0))
		return 2
	}
	var f flags
	fs := f.flagSet(cmd.flags)
	// The flags given before the command are the defaults of its own.
	gfs.Visit(func(fl *flag.Flag) { fs.Set(fl.Name, fl.Value.String()) })
	name := "aiq-rpc " + cmd.name
	if code, ok := parseFlags(fs, name, gfs.Args()[1:], e); !ok {
		return code
	}
	if f.version {
		return printVersion(e)
	}
	return profiled(e, f, func() int { return cmd.run(ctx, e, f, fs.Args()) })
}

func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// parseFlags parses args with fs. --help prints the usage on stdout; a
// bad flag is one line on stderr that points to --help. ok is false when
// the process should end with code.
func parseFlags(fs *flag.FlagSet, name string, args []string, e env) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(endFlagsAtQuestion(args))
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, usage())
		printFlags(e.stdout, fs)
		return 0, false
	}
	msg := err.Error()
	if rest, found := strings.CutPrefix(msg, "flag provided but not defined: "); found {
		msg = "unknown flag " + rest
	}
	fmt.Fprintf(e.stderr, "%s: %s; run '%s --help' for the flags\n", name, asTyped(msg, args), name)
	return 2, false
}

// endFlagsAtQuestion ends the flags before an argument that starts with a
// dash but cannot be a flag, because its name holds a space or a line
// break: a question that starts with a SQL comment ("-- totals\nSELECT
// ..."), which the flag package would call an unknown flag.
func endFlagsAtQuestion(args []string) []string {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		if strings.HasPrefix(a, "-") && strings.ContainsAny(name, " \t\r\n") {
			return slices.Concat(args[:i], []string{"--"}, args[i:])
		}
	}
	return args
}

// asTyped names the flags in the flag package's message msg as the user
// typed them: "--home", not "-home".
func asTyped(msg string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		if strings.HasPrefix(name, "--") && len(name) > 2 {
			msg = strings.ReplaceAll(msg, " "+name[1:], " "+name)
		}
	}
	return msg
}

// printFlags lists the flags of fs as --help shows them: with two dashes,
// as the README writes them, and -s beside --session.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(fl *flag.Flag) {
		if fl.Name == "s" {
			return
		}
		arg, help := flag.UnquoteUsage(fl)
		names := "--" + fl.Name
		if fl.Name == "session" {
			names = "-s, --session"
		}
		if arg != "" {
			names += " " + arg
		}
		if fl.DefValue != "" && fl.DefValue != "0" && fl.DefValue != "false" {
			help += " (default " + fl.DefValue + ")"
		}
		fmt.Fprintf(w, "  %s\n    \t%s\n", names, help)
	})
}

func usage() string {
	var b strings.Builder
	b.WriteString("aiq-rpc: ask your SQL database questions from your editor or the terminal.\n\nUsage:\n")
	lines := [][2]string{{"aiq-rpc [flags]", "serve JSON-RPC on stdin and stdout (editors run this)"}}
	for _, c := range commands() {
		lines = append(lines, [2]string{"aiq-rpc " + c.name + " " + c.args, c.summary})
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "  %-32s %s\n", l[0], l[1])
	}
	b.WriteString("\nFlags (before or after the command):\n")
	return b.String()
}

// profiled runs cmd, under the CPU profiler when --profile-cpu names a
// file, and writes what it allocated to --profile-alloc's file, as gopls's
// -profile.cpu and -profile.alloc do: a user can send us where a slow
// server spends its time.
func profiled(e env, f flags, cmd func() int) int {
	if f.profileCPU == "" {
		return allocProfiled(e, f, cmd)
	}
	out, err := os.Create(f.profileCPU)
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: --profile-cpu: %v\n", err)
		return 1
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		fmt.Fprintf(e.stderr, "aiq-rpc: --profile-cpu: %v\n", err)
		return 1
	}
	code := allocProfiled(e, f, cmd)
	pprof.StopCPUProfile()
	if err := out.Close(); err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: --profile-cpu: %v\n", err)
	}
	return code
}

// allocProfiled runs cmd, then writes the allocations of the run to
// --profile-alloc's file when it names one.
func allocProfiled(e env, f flags, cmd func() int) int {
	if f.profileAlloc == "" {
		return cmd()
	}
	out, err := os.Create(f.profileAlloc)
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: --profile-alloc: %v\n", err)
		return 1
	}
	code := cmd()
	err = pprof.Lookup("allocs").WriteTo(out, 0)
	if closeErr := out.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc: --profile-alloc: %v\n", err)
	}
	return code
}

func printVersion(e env) int {
	fmt.Fprintln(e.stdout, "aiq-rpc", version())
	return 0
}

// flags are the flags of every command.
type flags struct {
	session      string
	source       string
	home         string
	historyLimit int
	logFile      string
	version      bool
	profileCPU   string
	profileAlloc string
	json         bool
	modelTimeout time.Duration
	sqlTimeout   time.Duration
	// of aiq-rpc mcp
	confirmTimeout   time.Duration
	noCallLog        bool
	noBrowserConfirm bool
	stepTimeout      time.Duration // doctor's
}

// flagSet defines the common flags on f, and the command's own with
// extra.
func (f *flags) flagSet(extra func(*flag.FlagSet, *flags)) *flag.FlagSet {
	fs := flag.NewFlagSet("aiq-rpc", flag.ContinueOnError)
	fs.StringVar(&f.session, "s", "", "restore the session in `FILE` as the default session")
	fs.StringVar(&f.session, "session", "", "restore the session in `FILE` as the default session")
	fs.StringVar(&f.source, "source", "", "the data source `NAME` of new sessions")
	fs.StringVar(&f.home, "home", "", "the AIQ home `DIR` (default $AIQ_HOME, else ~/.aiq)")
	fs.Var(turnsFlag{&f.historyLimit}, "history-limit", "keep the last `N` turns of each session (default 20)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs to `PATH` instead of stderr")
	f.modelTimeout, f.sqlTimeout = llm.DefaultTimeout, 30*time.Second
	fs.Var(durationFlag{&f.modelTimeout}, "model-timeout", "give up on a model that sends nothing for `DURATION`")
	fs.Var(durationFlag{&f.sqlTimeout}, "statement-timeout", "stop a SQL statement that runs longer than `DURATION`")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.StringVar(&f.profileCPU, "profile-cpu", "", "write a CPU profile of the run to `FILE` (for go tool pprof)")
	fs.StringVar(&f.profileAlloc, "profile-alloc", "", "write what the run allocated to `FILE` (for go tool pprof)")
	if extra != nil {
		extra(fs, f)
	}
	return fs
}

// durationFlag is a duration flag whose error says what a bare number
// lacks: "--model-timeout 5" is not five seconds.
type durationFlag struct{ d *time.Duration }

func (v durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err == nil && d > 0:
		*v.d = d
		return nil
	case err == nil:
		return errors.New("give a duration above zero, as in 30s or 2m")
	}
	if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
		return fmt.Errorf("a duration needs a unit, as in %ss or %sm", s, s)
	}
	return errors.New("not a duration; write it as in 30s, 2m or 1h30m")
}

// turnsFlag is a count of turns: a whole number above zero.
type turnsFlag struct{ n *int }

func (v turnsFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("give a whole number of turns above zero, as in 20")
	}
	*v.n = n
	return nil
}

func (v turnsFlag) String() string {
	if v.n == nil || *v.n == 0 {
		return ""
	}
	return strconv.Itoa(*v.n)
}

func (v durationFlag) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
