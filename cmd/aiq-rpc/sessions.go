package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/aiq/aiq-rpc/conversation"
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
			question = "(unreadable: " + l.Error + ")"
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
