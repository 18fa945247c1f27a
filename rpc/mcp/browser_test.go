package mcp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/rpc/internal/confirmpage/pagetest"
	"github.com/aiq/aiq-rpc/rpc/mcp"
)

// browser stands for the user's browser: it records the pages it is
// asked to open and, as the user, presses decision on each.
type browser struct {
	decision string
	mu       sync.Mutex
	urls     []string
	pages    []string
}

func (b *browser) open(_ context.Context, url string) error {
	page, err := pagetest.Fetch(url)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.urls = append(b.urls, url)
	b.pages = append(b.pages, page)
	b.mu.Unlock()
	_, err = pagetest.Press(url, b.decision)
	return err
}

func (b *browser) opened() ([]string, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.urls...), append([]string(nil), b.pages...)
}

// instant is the time under which these tests count an answer as the
// host's: far above the few milliseconds an answer in this process takes,
// so that a busy machine does not turn a host's answer into a person's.
const instant = time.Minute

// hosts that do not ask their user: each way a host has of it.
var hostsThatDoNotAsk = []struct {
	name    string
	options func() *sdk.ClientOptions
	says    string
}{
	{"no elicitation", func() *sdk.ClientOptions { return nil }, "declares no elicitation"},
	{"instant decline", func() *sdk.ClientOptions { return (&elicitor{answer: answer("decline", "")}).options() }, "answered decline in"},
	{"instant cancel", func() *sdk.ClientOptions { return (&elicitor{answer: answer("cancel", "")}).options() }, "answered cancel in"},
	{"failing elicitation", func() *sdk.ClientOptions {
		return (&elicitor{answer: func(context.Context) (*sdk.ElicitResult, error) { return nil, errors.New("the host failed") }}).options()
	}, "failed to ask its user"},
}

// TestBrowserConfirms: where the host does not ask its user, aiq opens
// its page once in the user's browser; the user's Allow once runs the
// write, and the page's address is in no message to the client.
func TestBrowserConfirms(t *testing.T) {
	for _, host := range hostsThatDoNotAsk {
		t.Run(host.name, func(t *testing.T) {
			b := &browser{decision: "allow_once"}
			f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: b.open, HostAnswer: instant}})
			res := call(t, f.connect(host.options()), "execute_sql", map[string]any{"sql": deleteSQL})
			require.False(t, res.IsError, text(res))
			assert.Equal(t, int64(3), f.count(), "the user allowed it")
			urls, pages := b.opened()
			require.Len(t, urls, 1, "the page is opened once")
			assert.Regexp(t, `^http://127\.0\.0\.1:\d+/[A-Z2-7]{52}$`, urls[0])
			for _, want := range []string{"DELETE FROM orders WHERE status = &#39;pending&#39;", "db (sqlite)",
				"writes to the database (DELETE removes rows from a table)", "This DELETE would remove 1 row"} {
				assert.Contains(t, pages[0], want)
			}
			secret := urls[0][strings.LastIndex(urls[0], "/")+1:]
			assert.NotContains(t, f.wire.String(), secret, "the client never sees the page's secret")
			assert.NotContains(t, f.wire.String(), urls[0][:strings.LastIndex(urls[0], "/")], "nor its address")
			assert.NotContains(t, f.log.String(), secret, "nor does the log")
		})
	}
}

// TestBrowserRejects: Reject on the page, or Enter (which presses Reject,
// the first button), and the write does not run.
func TestBrowserRejects(t *testing.T) {
	for _, decision := range []string{"reject", ""} {
		b := &browser{decision: decision}
		f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: b.open}})
		res := call(t, f.connect(nil), "execute_sql", map[string]any{"sql": deleteSQL})
		assert.True(t, res.IsError)
		assert.Equal(t, "rejected", structured(t, res)["status"])
		assert.Contains(t, text(res), "the user declined", "the user was asked, and said no")
		assert.Equal(t, int64(4), f.count())
		urls, pages := b.opened()
		assert.Len(t, urls, 1)
		assert.Less(t, strings.Index(pages[0], ">Reject</button>"), strings.Index(pages[0], ">Allow once</button>"))
	}
}

// TestBrowserTimesOut: a page no one answers rejects after
// --confirm-timeout; the server goes on serving.
func TestBrowserTimesOut(t *testing.T) {
	opened := make(chan string, 1)
	open := func(_ context.Context, url string) error { opened <- url; return nil }
	f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: open, ConfirmTimeout: 200 * time.Millisecond}})
	cs := f.connect(nil)
	res := call(t, cs, "execute_sql", map[string]any{"sql": deleteSQL})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "no answer came within 200ms")
	assert.NotContains(t, text(res), "declined")
	assert.Equal(t, int64(4), f.count())
	url := <-opened
	_, err := pagetest.Fetch(url)
	assert.Error(t, err, "the page is gone once the question is")
	res = call(t, cs, "list_tables", nil)
	assert.False(t, res.IsError, text(res))
}

// TestNoOneToAsk: with no browser to open, or the page turned off, the
// refusal says what the statement does, why no one was asked, and where
// it can be run; never that the user declined, in the result or the log.
func TestNoOneToAsk(t *testing.T) {
	for _, host := range hostsThatDoNotAsk {
		t.Run(host.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{server: mcp.Options{HostAnswer: instant}})
			res := call(t, f.connect(host.options()), "execute_sql", map[string]any{"sql": deleteSQL})
			assert.True(t, res.IsError)
			assert.Equal(t, int64(4), f.count())
			for _, want := range []string{"writes to the database", host.says, "this test has no browser",
				"VS Code", "aiq-rpc ask", "aiq CLI", "Do not retry it here"} {
				assert.Contains(t, text(res), want)
			}
			assert.NotContains(t, text(res), "declined")
			logs, err := filepath.Glob(filepath.Join(f.home.SessionsDir(), "mcp_*_db.json"))
			require.NoError(t, err)
			require.Len(t, logs, 1)
			data, err := os.ReadFile(logs[0])
			require.NoError(t, err)
			assert.NotContains(t, string(data), "declined")
		})
	}
	t.Run("outside", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		res := call(t, f.connect(nil), "execute_sql", map[string]any{"sql": "ATTACH DATABASE '/tmp/x.sqlite' AS x"})
		assert.True(t, res.IsError)
		assert.Contains(t, text(res), "reaches outside the database")
	})
	t.Run("page turned off", func(t *testing.T) {
		b := &browser{decision: "allow_once"}
		f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: b.open, NoBrowserConfirm: true}})
		res := call(t, f.connect(nil), "execute_sql", map[string]any{"sql": deleteSQL})
		assert.True(t, res.IsError)
		assert.Contains(t, text(res), "--no-browser-confirm")
		assert.Equal(t, int64(4), f.count())
		urls, _ := b.opened()
		assert.Empty(t, urls)
	})
}

// TestPersonDeclines: a decline that took a person's time is the user's,
// and said so; no page is opened.
func TestPersonDeclines(t *testing.T) {
	b := &browser{decision: "allow_once"}
	f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: b.open}})
	e := &elicitor{answer: personAnswer("decline", "")}
	res := call(t, f.connect(e.options()), "execute_sql", map[string]any{"sql": deleteSQL})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "the user declined")
	assert.Equal(t, int64(4), f.count())
	urls, _ := b.opened()
	assert.Empty(t, urls)
}

// TestBrowserSaysItWaits: a client that asked for progress hears that the
// call waits for the user's answer in the browser, without the address.
func TestBrowserSaysItWaits(t *testing.T) {
	b := &browser{decision: "reject"}
	f := newFixture(t, fixtureOptions{server: mcp.Options{OpenBrowser: b.open}})
	var mu sync.Mutex
	var progress []string
	cs := f.connect(&sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
	}})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": deleteSQL},
		Meta: sdk.Meta{"progressToken": "p1"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	// The notification is sent before the page is opened, so before the
	// answer the call waits for.
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) == 1 }, waitTimeout, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, progress[0], "page aiq opened in their browser")
	assert.NotContains(t, progress[0], "127.0.0.1")
}
