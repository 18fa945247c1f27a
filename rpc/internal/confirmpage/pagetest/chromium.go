package pagetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ChromiumVar names the Chromium (or Chrome) that Chromium runs, when it
// is not /usr/bin/chromium or chromium on PATH.
const ChromiumVar = "AIQ_TEST_CHROMIUM"

// FindChromium returns the path of the Chromium the tests press pages in:
// $AIQ_TEST_CHROMIUM, /usr/bin/chromium, or chromium, chromium-browser or
// google-chrome on PATH. The error says how to get one.
func FindChromium() (string, error) {
	if p := os.Getenv(ChromiumVar); p != "" {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium to press the page in: apt-get install chromium, or set " + ChromiumVar)
}

// Skipper is what RequireChromium needs of a test.
type Skipper interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// RequireChromium returns FindChromium's Chromium, or skips the test with
// the reason; with AIQ_DBTEST_REQUIRE=1 (CI) a missing Chromium fails it.
func RequireChromium(t Skipper) string {
	t.Helper()
	p, err := FindChromium()
	if err == nil {
		return p
	}
	if os.Getenv("AIQ_DBTEST_REQUIRE") == "1" || os.Getenv("CI") == "true" {
		t.Fatalf("%v (AIQ_DBTEST_REQUIRE=1 makes it a failure)", err)
	}
	t.Skipf("skipped: %v", err)
	return ""
}

// chromiumFlags run a headless Chromium that talks to nothing but the
// page: no first-run, no sync, no updates, no proxy.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-proxy-server",
	"--no-default-browser-check", "--remote-debugging-pipe"}

// Chromium opens pageURL in a new headless Chromium (the path chromium)
// and, as the user, presses the button whose value is decision with the
// mouse ("allow_once" or "reject"; "enter" presses the Enter key
// instead, which presses the focused button). The browser sends the form
// as it would for anyone: its own Origin, Sec-Fetch-Site and Referer. It
// returns the text of the page the browser shows after the press (the
// page's answer, or its refusal). Chromium is driven over the DevTools
// protocol on a pipe, and is gone when Chromium returns.
func Chromium(ctx context.Context, chromium, pageURL, decision string) (string, error) {
	profile, err := os.MkdirTemp("", "aiq-chromium-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(profile)
	// Chromium reads the protocol on its fd 3 and writes it on its fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(chromium, append(chromiumFlags, "--user-data-dir="+profile, "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	stderr := &limited{n: 8 << 10}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %w", chromium, err)
	}
	cmdR.Close()
	outW.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	defer func() {
		stop()
		cmdW.Close() // Chromium ends when its protocol pipe closes
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		outR.Close()
	}()
	c := &devtools{w: cmdW, r: bufio.NewReader(outR)}
	text, err := press(ctx, c, pageURL, decision)
	if err != nil {
		return "", fmt.Errorf("%w; Chromium's stderr:\n%s", err, stderr.String())
	}
	c.call("", "Browser.close", nil)
	return text, nil
}

// press does Chromium's work: open the page, press, read the answer.
func press(ctx context.Context, c *devtools, pageURL, decision string) (string, error) {
	var target struct{ TargetID string }
	if err := c.decode("", "Target.createTarget", map[string]any{"url": pageURL}, &target); err != nil {
		return "", err
	}
	var attached struct{ SessionID string }
	if err := c.decode("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return "", err
	}
	s := attached.SessionID
	button, focused := decision, "true"
	if decision == "enter" {
		// The key goes to the focused button: wait until the page has
		// given Reject the focus, as it does when it opens.
		button, focused = "reject", "document.activeElement === b"
	}
	// The button, once the page is loaded: its middle, in the viewport.
	var at struct{ X, Y float64 }
	err := poll(ctx, func() (bool, error) {
		v, err := c.eval(s, fmt.Sprintf(`(() => {
			if (document.readyState !== "complete") return "";
			const b = document.querySelector('form button[value=%q]');
			if (!b || !(%s)) return "";
			b.scrollIntoView();
			const r = b.getBoundingClientRect();
			return JSON.stringify({x: r.x + r.width / 2, y: r.y + r.height / 2});
		})()`, button, focused))
		if err != nil || v == "" {
			return false, nil // still loading
		}
		return true, json.Unmarshal([]byte(v), &at)
	})
	if err != nil {
		return "", fmt.Errorf("the page never showed its form: %w", err)
	}
	if decision == "enter" {
		for _, kind := range []string{"keyDown", "keyUp"} {
			if _, err := c.call(s, "Input.dispatchKeyEvent", map[string]any{"type": kind, "key": "Enter", "code": "Enter",
				"windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13, "text": "\r"}); err != nil {
				return "", err
			}
		}
	} else {
		for _, kind := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
			if _, err := c.call(s, "Input.dispatchMouseEvent", map[string]any{"type": kind, "x": at.X, "y": at.Y,
				"button": "left", "buttons": 1, "clickCount": 1}); err != nil {
				return "", err
			}
		}
	}
	// The page after the press: the form is gone.
	var text string
	err = poll(ctx, func() (bool, error) {
		v, err := c.eval(s, `document.readyState === "complete" && !document.querySelector("form") ? document.body.innerText : ""`)
		text = v
		return err == nil && v != "", nil
	})
	if err != nil {
		return "", fmt.Errorf("no page came after the press: %w", err)
	}
	return strings.TrimSpace(text), nil
}

// poll calls cond every 50 ms until it is done, fails, or ctx is.
func poll(ctx context.Context, cond func() (bool, error)) error {
	for {
		done, err := cond()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// devtools is a client of the DevTools protocol over Chromium's pipe:
// each message a JSON object ended by a NUL byte.
type devtools struct {
	w  *os.File
	r  *bufio.Reader
	id int
}

func (c *devtools) call(session, method string, params any) (json.RawMessage, error) {
	c.id++
	msg := map[string]any{"id": c.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := c.w.Write(append(data, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		line, err := c.r.ReadBytes(0)
		if err != nil {
			return nil, fmt.Errorf("%s: Chromium went away: %w", method, err)
		}
		var res struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line[:len(line)-1], &res) != nil || res.ID != c.id {
			continue // an event, or the answer to another call
		}
		if res.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, res.Error.Message)
		}
		return res.Result, nil
	}
}

func (c *devtools) decode(session, method string, params, into any) error {
	res, err := c.call(session, method, params)
	if err != nil {
		return err
	}
	return json.Unmarshal(res, into)
}

// eval evaluates expression in the page; its value must be a string.
func (c *devtools) eval(session, expression string) (string, error) {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := c.decode(session, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true}, &res); err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", errors.New(res.ExceptionDetails.Text)
	}
	s, _ := res.Result.Value.(string)
	return s, nil
}

// limited keeps the first n bytes written to it. Chromium writes to it
// while the test may already read it.
type limited struct {
	mu sync.Mutex
	b  strings.Builder
	n  int
}

func (l *limited) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *limited) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
