package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test binary is also the user's browser for the confirmation page of
// aiq-rpc mcp: run as $BROWSER with AIQ_TEST_BROWSER set, it notes the URL
// in AIQ_TEST_BROWSER_LOG, fetches the page and, as the user, presses the
// button AIQ_TEST_BROWSER names (allow_once or reject; "none" answers
// nothing). "chromium:allow_once" and "chromium:reject" have the hosts'
// test browser (rpc/mcp/testdata/hosts/browser, AIQ_TEST_BROWSER_PROGRAM)
// press the button with the mouse in a real headless Chromium, whose form
// post carries the browser's own headers.
const (
	browserAnswerVar  = "AIQ_TEST_BROWSER"
	browserLogVar     = "AIQ_TEST_BROWSER_LOG"
	browserProgramVar = "AIQ_TEST_BROWSER_PROGRAM"
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
	if d, ok := strings.CutPrefix(decision, "chromium:"); ok {
		// The program's arguments (-chromium PATH) are in the variable.
		args := append(strings.Fields(os.Getenv(browserProgramVar)), d, os.Getenv(browserLogVar)+".pressed", pageURL)
		cmd := exec.Command(args[0], args[1:]...)
		// Attached: the test binary is the opener that waits for it.
		cmd.Env = append(os.Environ(), "AIQ_TEST_BROWSER_DETACHED=1")
		cmd.WaitDelay = time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v:\n%s", err, out)
		}
		return nil
	}
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
	if strings.HasPrefix(decision, "chromium:") {
		env = append(env, browserProgramVar+"="+testBrowserProgram(t)+" -chromium "+findChromium(t))
	}
	return env, func() []string {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		require.NoError(t, err)
		return strings.Fields(string(data))
	}
}

// findChromium is the Chromium the tests press pages in (as
// rpc/internal/confirmpage/pagetest finds it: $AIQ_TEST_CHROMIUM,
// /usr/bin/chromium, or one on PATH); without one the test is skipped
// with the reason, or fails under AIQ_DBTEST_REQUIRE=1.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AIQ_TEST_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	problem := "no Chromium to press the page in: apt-get install chromium, or set AIQ_TEST_CHROMIUM"
	if os.Getenv("CI") == "true" || os.Getenv("AIQ_DBTEST_REQUIRE") == "1" {
		t.Fatal(problem)
	}
	t.Skip("skipped: " + problem)
	return ""
}

var testBrowserBuild struct {
	once sync.Once
	path string
	err  error
}

// testBrowserProgram builds, once per test run, the hosts' test browser
// (rpc/mcp/testdata/hosts/browser), which presses the page's buttons.
func testBrowserProgram(t *testing.T) string {
	t.Helper()
	b := &testBrowserBuild
	b.once.Do(func() {
		// Beside the binary TestMain built, in the folder it removes.
		dir := filepath.Dir(plainBinary)
		if os.Getenv("AIQ_RPC_TEST_BINARY") != "" {
			var err error
			if dir, err = os.MkdirTemp("", "aiq-test-browser-"); err != nil {
				b.err = err
				return
			}
		}
		b.path = filepath.Join(dir, "aiq-test-browser")
		out, err := exec.Command("go", "build", "-o", b.path, browserPkg).CombinedOutput()
		if err != nil {
			b.err = errors.New(err.Error() + ":\n" + string(out))
		}
	})
	require.NoError(t, b.err, "build the test browser")
	return b.path
}
