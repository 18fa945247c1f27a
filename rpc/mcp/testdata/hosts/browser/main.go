// Command browser stands in for the user's browser in the tests of real
// MCP hosts: given as $BROWSER, it records that it was opened, fetches
// aiq's confirmation page and presses one of its buttons, as the user
// would.
//
//	browser DECISION RECORD URL
//
// DECISION is allow_once or reject; RECORD is a file that gets one line
// per page opened (never the URL, which holds the page's secret).
package main

import (
	"fmt"
	"os"

	"github.com/aiq/aiq-rpc/rpc/internal/confirmpage/pagetest"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: browser allow_once|reject RECORD URL")
		os.Exit(2)
	}
	decision, record, url := os.Args[1], os.Args[2], os.Args[3]
	answer, err := pagetest.Press(url, decision)
	line := "pressed " + decision + "\n"
	if err != nil {
		line = fmt.Sprintf("failed: %v\n", err)
	}
	f, ferr := os.OpenFile(record, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if ferr == nil {
		f.WriteString(line)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = answer
}
