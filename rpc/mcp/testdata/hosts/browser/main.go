// Command browser stands in for the user's browser in the tests of real
// MCP hosts: given as $BROWSER, it records that it was opened, opens
// aiq's confirmation page and presses one of its buttons, as the user
// would.
//
//	browser [-chromium PATH] DECISION RECORD URL
//
// DECISION is allow_once or reject; RECORD is a file that gets one line
// per page opened (never the URL, which holds the page's secret). With
// -chromium the page is opened and the button pressed with the mouse in
// a real headless Chromium, whose form post carries the browser's own
// headers; without it the page is fetched and its form posted over HTTP.
//
// As a real opener does (xdg-open hands the URL to a browser that runs on
// its own), it returns at once and does its work in a process of its own
// session: a host that ends, or kills its server's process group, as
// soon as aiq has the answer does not take the browser with it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/aiq/aiq-rpc/rpc/internal/confirmpage/pagetest"
)

// detachedVar marks the process that does the work.
const detachedVar = "AIQ_TEST_BROWSER_DETACHED"

func main() {
	chromium := flag.String("chromium", "", "press the button in this headless Chromium")
	flag.Parse()
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: browser [-chromium PATH] allow_once|reject RECORD URL")
		os.Exit(2)
	}
	if os.Getenv(detachedVar) == "" {
		self, err := os.Executable()
		if err == nil {
			cmd := exec.Command(self, os.Args[1:]...)
			cmd.Env = append(os.Environ(), detachedVar+"=1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			err = cmd.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "start the browser:", err)
			os.Exit(1)
		}
		return
	}
	decision, record, url := flag.Arg(0), flag.Arg(1), flag.Arg(2)
	var answer string
	var err error
	if *chromium != "" {
		// Only a hang takes this long.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		answer, err = pagetest.Chromium(ctx, *chromium, url, decision)
		cancel()
		// The page's answer, as the browser shows it: a refusal of
		// the form (an Origin the page does not take) is a failure.
		if want := map[string]string{"allow_once": "Allowed once", "reject": "Rejected"}[decision]; err == nil && !strings.Contains(answer, want) {
			err = fmt.Errorf("the browser shows %q after the press, not the page's answer", answer)
		}
	} else {
		answer, err = pagetest.Press(url, decision)
	}
	line := "pressed " + decision + "\n"
	if err != nil {
		line = fmt.Sprintf("failed: %v\n", strings.ReplaceAll(err.Error(), "\n", " | "))
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
}
