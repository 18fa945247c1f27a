package confirmpage

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/rpc/internal/confirmpage/pagetest"
)

// waitTimeout bounds a wait that only a hang should trip.
const waitTimeout = 2 * time.Minute

var statement = Statement{SQL: "DELETE FROM orders WHERE status = 'pending'", Source: "shop (postgresql)",
	Label: "production", What: "It writes to the database.", DryRun: "This DELETE would remove 3 rows.",
	Masked: []Masked{{Token: "<email_1>", Value: "ann@example.com"}}}

// user acts as the user in the browser: it fetches the page and answers
// with its own form, pressing the button whose value is decision ("" is
// the Enter key, which presses the first).
func user(t *testing.T, decision string, opened *atomic.Int32) Opener {
	return func(ctx context.Context, pageURL string) error {
		opened.Add(1)
		_, err := pagetest.Press(pageURL, decision)
		assert.NoError(t, err)
		return nil
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	page, err := pagetest.Fetch(u)
	require.NoError(t, err)
	return page
}

// TestAsk: the page is opened once, and the user's button is the answer.
func TestAsk(t *testing.T) {
	for _, c := range []struct {
		decision string
		allowed  bool
	}{{"allow_once", true}, {"reject", false}, {"", false}, {"allow_always", false}} {
		t.Run("decision "+c.decision, func(t *testing.T) {
			var opened atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			allowed, err := Ask(ctx, statement, user(t, c.decision, &opened), waitTimeout)
			require.NoError(t, err)
			assert.Equal(t, c.allowed, allowed)
			assert.EqualValues(t, 1, opened.Load())
		})
	}
}

// TestPageShowsTheStatement: the statement, the source and its label, what
// it does, the dry run and the masked values, escaped; Reject first and
// focused.
func TestPageShowsTheStatement(t *testing.T) {
	st := statement
	st.SQL = "UPDATE t SET a = '<script>alert(1)</script>'"
	p, err := newPage(st)
	require.NoError(t, err)
	defer p.close()
	page := get(t, p.url())
	for _, want := range []string{"UPDATE t SET a = &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;", "shop (postgresql)",
		"production", "It writes to the database.", "This DELETE would remove 3 rows.", "&lt;email_1&gt;", "ann@example.com"} {
		assert.Contains(t, page, want)
	}
	assert.NotContains(t, page, "<script>")
	reject := strings.Index(page, `value="reject" autofocus>Reject</button>`)
	allow := strings.Index(page, `value="allow_once">Allow once</button>`)
	require.True(t, reject > 0 && allow > 0, page)
	assert.Less(t, reject, allow, "Reject comes first, so that Enter presses it")
}

// TestPageShowsHiddenCharacters: a statement that would read otherwise
// than it runs, through a bidirectional override or a zero-width
// character, shows those characters written out.
func TestPageShowsHiddenCharacters(t *testing.T) {
	st := statement
	st.SQL = "DELETE FROM t WHERE id = 1 \u202e-- ;1 = di\u200b"
	st.Label = "prod\u2066"
	p, err := newPage(st)
	require.NoError(t, err)
	defer p.close()
	page := get(t, p.url())
	assert.Contains(t, page, `DELETE FROM t WHERE id = 1 \u{202E}-- ;1 = di\u{200B}`)
	assert.Contains(t, page, `prod\u{2066}`)
	for _, r := range []string{"\u202e", "\u200b", "\u2066"} {
		assert.NotContains(t, page, r)
	}
}

// TestOnlyItsOwnForm: a POST without the nonce, with another, from
// another Origin or none, to another path, of another type, through
// another Host name, or after the answer, changes nothing; the page's
// own form answers once.
func TestOnlyItsOwnForm(t *testing.T) {
	p, err := newPage(statement)
	require.NoError(t, err)
	defer p.close()
	origin := p.origin()
	allow := url.Values{"nonce": {p.nonce}, "decision": {"allow_once"}}
	do := func(method, path, host, origin, contentType string, values url.Values, header ...string) int {
		req := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(values.Encode()))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		req.Host = host
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		return w.Code
	}
	form := "application/x-www-form-urlencoded"
	path := "/" + p.secret
	for _, c := range []struct {
		name string
		code int
	}{
		{"no nonce", do("POST", path, p.addr, origin, form, url.Values{"decision": {"allow_once"}})},
		{"another nonce", do("POST", path, p.addr, origin, form, url.Values{"nonce": {"x" + p.nonce}, "decision": {"allow_once"}})},
		{"another origin", do("POST", path, p.addr, "http://evil.example", form, allow)},
		{"no origin", do("POST", path, p.addr, "", form, allow)},
		// What a browser sends from a page under Referrer-Policy:
		// no-referrer, or from a sandboxed frame or a file.
		{"null origin", do("POST", path, p.addr, "null", form, allow)},
		{"cross-site fetch", do("POST", path, p.addr, origin, form, allow, "Sec-Fetch-Site", "cross-site")},
		{"same-site fetch", do("POST", path, p.addr, origin, form, allow, "Sec-Fetch-Site", "same-site")},
		{"fetch from no site", do("POST", path, p.addr, origin, form, allow, "Sec-Fetch-Site", "none")},
		{"another path", do("POST", "/"+p.secret+"x", p.addr, origin, form, allow)},
		{"no secret", do("POST", "/", p.addr, origin, form, allow)},
		{"another host", do("POST", path, "localhost"+p.addr[strings.LastIndex(p.addr, ":"):], origin, form, allow)},
		{"json", do("POST", path, p.addr, origin, "application/json", allow)},
		{"PUT", do("PUT", path, p.addr, origin, form, allow)},
	} {
		assert.NotEqual(t, http.StatusOK, c.code, c.name)
	}
	assert.Equal(t, http.StatusOK, do("GET", path+"?"+allow.Encode(), p.addr, origin, "", nil), "a GET shows the page and answers nothing")
	select {
	case a := <-p.answer:
		t.Fatalf("a forged request answered the page: %v", a)
	default:
	}

	assert.Equal(t, http.StatusOK, do("POST", path, p.addr, origin, form, allow, "Sec-Fetch-Site", "same-origin"), "the page's own form")
	assert.Equal(t, http.StatusGone, do("POST", path, p.addr, origin, form, url.Values{"nonce": {p.nonce}}), "a second answer")
	assert.Equal(t, http.StatusGone, do("GET", path, p.addr, "", "", nil), "the page after its answer")
	assert.True(t, <-p.answer)
	select {
	case a := <-p.answer:
		t.Fatalf("a second answer: %v", a)
	default:
	}
}

func TestHeaders(t *testing.T) {
	p, err := newPage(statement)
	require.NoError(t, err)
	defer p.close()
	res, err := http.Get(p.url())
	require.NoError(t, err)
	res.Body.Close()
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	// Not no-referrer: under it a browser sends "Origin: null" with the
	// form, which the page must refuse (TestInChromium presses it).
	assert.Equal(t, "same-origin", res.Header.Get("Referrer-Policy"))
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
}

// TestTimeoutRejects: a page no one answers rejects after the timeout.
func TestTimeoutRejects(t *testing.T) {
	var opened atomic.Int32
	open := func(context.Context, string) error { opened.Add(1); return nil }
	allowed, err := Ask(context.Background(), statement, open, 100*time.Millisecond)
	assert.False(t, allowed)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.EqualValues(t, 1, opened.Load())
}

// TestCancelled: a call cancelled while it waits returns ctx's error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	open := func(context.Context, string) error { cancel(); return nil }
	allowed, err := Ask(ctx, statement, open, waitTimeout)
	assert.False(t, allowed)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestNoBrowser: an opener that fails, before anyone fetched the page, is
// ErrNoBrowser with its reason.
func TestNoBrowser(t *testing.T) {
	open := func(context.Context, string) error { return errors.New("xdg-open ended with status 3") }
	allowed, err := Ask(context.Background(), statement, open, waitTimeout)
	assert.False(t, allowed)
	assert.ErrorIs(t, err, ErrNoBrowser)
	assert.Contains(t, err.Error(), "xdg-open ended with status 3")
}

// TestBrowser: $BROWSER's commands in turn, %s for the URL; a reason that
// never holds the URL.
func TestBrowser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: the commands true and false are Unix's")
	}
	const u = "http://127.0.0.1:1/SECRET"
	env := func(vars ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == name {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	ctx := context.Background()
	assert.NoError(t, Browser(env("BROWSER", "true"))(ctx, u))
	assert.NoError(t, Browser(env("BROWSER", "no-such-browser-here:true %s"))(ctx, u), "the next command")
	err := Browser(env("BROWSER", "false"))(ctx, u)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "false ended with status 1")
	err = Browser(env("BROWSER", "no-such-browser-here"))(ctx, u)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-such-browser-here is not installed")
	assert.NotContains(t, err.Error(), "SECRET")
	if runtime.GOOS == "linux" {
		err = Browser(env())(ctx, u)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no display")
	}
	assert.Equal(t, []string{"b", "--new", u, "x"}, withURL([]string{"b", "--new", "%s", "x"}, u))
	assert.Equal(t, []string{"b", u}, withURL([]string{"b"}, u))
}

// TestInChromium: the user presses "Allow once", "Reject", or Enter, in a
// real headless Chromium, whose form post carries the browser's own
// headers (Origin, Sec-Fetch-Site, Referer), not a test's: the page takes
// the answer and says so.
func TestInChromium(t *testing.T) {
	chromium := pagetest.RequireChromium(t)
	for _, c := range []struct {
		decision string
		allowed  bool
		says     string
	}{{"allow_once", true, "Allowed once"}, {"reject", false, "Rejected"}, {"enter", false, "Rejected"}} {
		t.Run(c.decision, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			said := make(chan string, 1)
			// The browser outlives Ask, which returns at the press:
			// it shows the page's answer after.
			open := func(_ context.Context, pageURL string) error {
				text, err := pagetest.Chromium(ctx, chromium, pageURL, c.decision)
				assert.NoError(t, err)
				said <- text
				return err
			}
			type answer struct {
				allowed bool
				err     error
			}
			asked := make(chan answer, 1)
			go func() {
				allowed, err := Ask(ctx, statement, open, waitTimeout)
				asked <- answer{allowed, err}
			}()
			// What the browser shows after the press comes first: a
			// refusal there fails the test now, not at the timeout.
			select {
			case text := <-said:
				require.Contains(t, text, c.says, "the page's answer in the browser")
			case <-ctx.Done():
				t.Fatal("Chromium never showed the page's answer")
			}
			a := <-asked
			require.NoError(t, a.err)
			assert.Equal(t, c.allowed, a.allowed)
		})
	}
}
