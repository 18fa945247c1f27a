package main

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestMCPBrowserConfirm: for a client without elicitation, the built
// binary opens its confirmation page once in $BROWSER (the test binary,
// acting as the user, over HTTP or with the mouse in a real headless
// Chromium); the user's answer decides, the page's address is
// in no message to the client nor in the log, and a page no one answers
// rejects at --confirm-timeout.
func TestMCPBrowserConfirm(t *testing.T) {
	for _, c := range []struct {
		decision string
		args     []string
		rows     int64
		says     string
	}{
		{"allow_once", nil, 3, "1 row(s) affected"},
		{"reject", nil, 4, "the user declined"},
		// Pressed in a real browser, with its own Origin.
		{"chromium:allow_once", nil, 3, "1 row(s) affected"},
		{"chromium:reject", nil, 4, "the user declined"},
		{"none", []string{"--confirm-timeout", "2s"}, 4, "no answer came within 2s"},
	} {
		t.Run(c.decision, func(t *testing.T) {
			db := dbtest.SQLite(t)
			dbtest.Exec(t, db, "CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
				"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')")
			h := home{Dir: t.TempDir()}
			h.writeFile(t, "config/sources.yaml", sourcesYAML(db))
			env, opened := testBrowser(t, c.decision)
			p := startMCP(t, h, env, append([]string{"--source", "db"}, c.args...)...)
			res := mcpCall(t, p.session, "execute_sql", map[string]any{"sql": "DELETE FROM orders WHERE status = 'pending'"})
			assert.Contains(t, textOf(res), c.says)
			assert.Equal(t, !strings.HasSuffix(c.decision, "allow_once"), res.IsError)
			assert.Equal(t, c.rows, dbtest.QueryInt(t, db, "SELECT count(*) FROM orders"))

			urls := opened()
			require.Len(t, urls, 1, "the page is opened once")
			secret := urls[0][strings.LastIndex(urls[0], "/")+1:]
			require.Len(t, secret, 52)
			assert.NotContains(t, p.stdout.String(), secret, "no message to the client holds the page's secret")
			assert.NotContains(t, p.stderr.String(), secret, "nor does the log")
			require.NoError(t, p.stdin.Close())
			<-p.done
			assert.NotContains(t, p.stdout.String(), secret)
		})
	}
}

// TestMCPNoBrowser: with no browser to open, or --no-browser-confirm, a
// write from a client without elicitation is refused with what it does
// and where it can be run.
func TestMCPNoBrowser(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		args []string
		says string
	}{
		{"no browser", []string{"BROWSER=false", "DISPLAY=", "WAYLAND_DISPLAY="}, nil, "false ended with status 1"},
		{"turned off", nil, []string{"--no-browser-confirm"}, "--no-browser-confirm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := dbtest.SQLite(t)
			dbtest.Exec(t, db, "CREATE TABLE t (id integer PRIMARY KEY)", "INSERT INTO t VALUES (1)")
			h := home{Dir: t.TempDir()}
			h.writeFile(t, "config/sources.yaml", sourcesYAML(db))
			env, opened := testBrowser(t, "allow_once")
			p := startMCP(t, h, append(env, c.env...), append([]string{"--source", "db"}, c.args...)...)
			res := mcpCall(t, p.session, "execute_sql", map[string]any{"sql": "DELETE FROM t"})
			assert.True(t, res.IsError)
			for _, want := range []string{"writes to the database", "declares no elicitation", c.says, "aiq-rpc ask", "aiq CLI"} {
				assert.Contains(t, textOf(res), want)
			}
			assert.NotContains(t, textOf(res), "declined")
			assert.EqualValues(t, 1, dbtest.QueryInt(t, db, "SELECT count(*) FROM t"))
			assert.Empty(t, opened())
		})
	}
}

func mcpCall(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}
