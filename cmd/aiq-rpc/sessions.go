package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// runSessions lists the saved sessions, newest first.
func runSessions(ctx context.Context, e env, f flags, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "aiq-rpc sessions: takes no arguments, got %q; run 'aiq-rpc sessions --help' for the flags\n", args[0])
		return 2
	}
	home, err := findHome(e, f)
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc sessions: %v\n", err)
		return 1
	}
	list, err := conversation.ListSessions(home.SessionsDir())
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc sessions: %v\n", err)
		return 1
	}
	if len(list) == 0 {
		fmt.Fprintf(e.stdout, "No saved sessions in %s.\n", home.SessionsDir())
		return 0
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UPDATED\tTURNS\tSOURCE\tFIRST QUESTION\tPATH")
	for _, l := range list {
		question, source := l.FirstQuestion, l.Source
		if source == "" {
			source = "(no database)"
		}
		if l.Error != "" {
			question = "(unreadable: " + unreadableReason(l) + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", updated(l), l.Turns, source, oneLine(question, 50), l.Path)
	}
	tw.Flush()
	return 0
}

func oneLine(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' || c == '\t' {
			r[i] = ' '
		}
	}
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}

// unreadableReason is why a session file could not be read, without the
// steps that led to it ("load session PATH: invalid session file: "): the
// row names the file already.
func unreadableReason(l conversation.Listed) string {
	reason := strings.TrimPrefix(l.Error, "load session "+l.Path+": ")
	for _, sentinel := range []error{sessionio.ErrInvalid, sessionio.ErrTooLarge} {
		if rest, ok := strings.CutPrefix(reason, sentinel.Error()+": "); ok {
			return rest
		}
	}
	return reason
}

// updated is when the session was last saved, as its file says, or, when
// the file does not say (a file without metadata), its modification time.
func updated(l conversation.Listed) string {
	t := l.Updated
	if t.IsZero() {
		if info, err := os.Stat(l.Path); err == nil {
			t = info.ModTime()
		}
	}
	return t.Local().Format("2006-01-02 15:04")
}
