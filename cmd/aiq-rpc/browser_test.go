package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test binary is also the user's browser for the confirmation page of
// aiq-rpc mcp: run as $BROWSER with AIQ_TEST_BROWSER set, it notes the URL
// in AIQ_TEST_BROWSER_LOG, fetches the page and, as the user, presses the
// button AIQ_TEST_BROWSER names (allow_once or reject; "none" answers
// nothing).
const (
	browserAnswerVar = "AIQ_TEST_BROWSER"
	browserLogVar    = "AIQ_TEST_BROWSER_LOG"
)

// actAsBrowser acts as the browser when the test binary is run as one.
func actAsBrowser() (int, bool) {
	decision, ok := os.LookupEnv(browserAnswerVar)
	if !ok || len(os.Args) < 2 {
		return 0, false
	}
	if err := browse(os.Args[len(os.Args)-1], decision); err != nil {
		fmt.Fprintln(os.Stderr, "test browser:", err)
		return 1, true
	}
	return 0, true
}

var (
	formActionRE = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	formNonceRE  = regexp.MustCompile(`name="nonce" value="([^"]+)"`)
)

func browse(pageURL, decision string) error {
	f, err := os.OpenFile(os.Getenv(browserLogVar), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	fmt.Fprintln(f, pageURL)
	f.Close()
	client := &http.Client{Timeout: time.Minute}
	res, err := client.Get(pageURL)
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	action, nonce := formActionRE.FindSubmatch(page), formNonceRE.FindSubmatch(page)
	if res.StatusCode != http.StatusOK || action == nil || nonce == nil {
		return fmt.Errorf("no form on the page (%s):\n%s", res.Status, page)
	}
	if decision == "none" {
		return nil
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		return err
	}
	origin := u.Scheme + "://" + u.Host
	form := url.Values{"nonce": {string(nonce[1])}, "decision": {decision}}
	req, err := http.NewRequest(http.MethodPost, origin+string(action[1]), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	res, err = client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the form was refused: %s", res.Status)
	}
	return nil
}

// testBrowser is the environment that makes the test binary the browser
// of an aiq-rpc child, answering decision, and a function that returns
// the URLs it was asked to open.
func testBrowser(t *testing.T, decision string) (env []string, opened func() []string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	log := filepath.Join(t.TempDir(), "browser.log")
	env = []string{"BROWSER=" + self, browserAnswerVar + "=" + decision, browserLogVar + "=" + log}
	return env, func() []string {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		require.NoError(t, err)
		return strings.Fields(string(data))
	}
}
