package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/mcp"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// waitTimeout bounds every wait of a test: only a hang reaches it.
const waitTimeout = 2 * time.Minute

// testPassword is the password of a configured source that no answer may
// show.
const testPassword = "pw-mcp-never-shown"

// fixture is a server in this process over a real SQLite database in a
// home whose sources.yaml names it and a PostgreSQL source that is not
// running, spoken to by the SDK's own client over the in-memory transport.
type fixture struct {
	t    testing.TB
	home sessionio.Home
	src  sessionio.Source
	ws   *conversation.Workspace
	log  *syncBuffer
	srv  *mcp.Server
	// wire is every message between the client and the server.
	wire *syncBuffer
}

// fixtureOptions change a fixture.
type fixtureOptions struct {
	server  mcp.Options
	toolbox conversation.OpenToolbox // nil: the real databases
	// onlySource configures the SQLite database alone; noDefault leaves
	// the default source unset.
	onlySource, noDefault bool
	// source, when set, is the database instead of a SQLite file; the
	// orders table is made on it all the same.
	source func(testing.TB) sessionio.Source
}

func newFixture(t testing.TB, o fixtureOptions) *fixture {
	t.Helper()
	if o.source == nil {
		o.source = dbtest.SQLite
	}
	f := &fixture{t: t, home: sessionio.Home{Dir: t.TempDir()}, src: o.source(t), log: &syncBuffer{}, wire: &syncBuffer{}}
	f.src.Name = "db"
	dbtest.Exec(t, f.src,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	sources := []sessionio.Source{f.src, {Name: "other", Type: sessionio.TypePostgreSQL, Host: "127.0.0.1", Port: 1,
		Database: "x", Username: "analyst", Password: sessionio.Secret(testPassword)}}
	def := "db"
	if o.onlySource {
		sources = sources[:1]
	}
	if o.onlySource || o.noDefault {
		def = ""
	}
	f.writeSources(sources...)
	f.ws = conversation.NewWorkspace(conversation.Config{Home: f.home, DefaultSource: def, OpenToolbox: o.toolbox})
	t.Cleanup(func() { f.ws.Close() })
	opts := o.server
	opts.Name, opts.Version, opts.Home = "aiq-rpc", "test", f.home
	opts.Log = slog.New(slog.NewTextHandler(f.log, nil))
	if opts.OpenBrowser == nil {
		// A test never opens the real browser of whoever runs it.
		opts.OpenBrowser = func(context.Context, string) error { return errors.New("this test has no browser") }
	}
	f.srv = mcp.New(f.ws, opts)
	return f
}

// writeSources writes the home's sources.yaml.
func (f *fixture) writeSources(sources ...sessionio.Source) {
	var b strings.Builder
	for _, s := range sources {
		fmt.Fprintf(&b, "- name: %s\n  type: %s\n  database: %q\n", s.Name, s.Type, s.Database)
		if s.Host != "" {
			fmt.Fprintf(&b, "  host: %s\n  port: %d\n  username: %s\n  password: %q\n", s.Host, s.Port, s.Username, s.Password.Reveal())
		}
		if s.MaxEstimatedRows != 0 {
			fmt.Fprintf(&b, "  max_estimated_rows: %d\n", s.MaxEstimatedRows)
		}
	}
	path := f.home.SourcesPath()
	require.NoError(f.t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(f.t, os.WriteFile(path, []byte(b.String()), 0o600))
}

// connect starts the server on one end of an in-memory pipe and connects
// a client with opts on the other.
func (f *fixture) connect(opts *sdk.ClientOptions) *sdk.ClientSession {
	return f.connectAt("", opts)
}

// connectAt connects a client that asks for the protocol revision
// version ("" for the newest).
func (f *fixture) connectAt(version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	f.t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.Run(ctx, st) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, &sdk.LoggingTransport{Transport: ct, Writer: f.wire}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(f.t, err)
	f.t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(waitTimeout):
			f.t.Error("the server did not end")
		}
	})
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "call %s", name)
	return res
}

// text is the text content of a result.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structuredContent.
func structured(t testing.TB, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "structuredContent: %s", data)
	return m
}

// count counts the orders left.
func (f *fixture) count() int64 {
	return dbtest.QueryInt(f.t, f.src, "SELECT count(*) FROM orders")
}

// elicitor answers elicitations as told and keeps them.
type elicitor struct {
	mu     sync.Mutex
	asked  []*sdk.ElicitParams
	answer func(ctx context.Context) (*sdk.ElicitResult, error)
}

func (e *elicitor) handle(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	e.asked = append(e.asked, req.Params)
	e.mu.Unlock()
	return e.answer(ctx)
}

func (e *elicitor) requests() []*sdk.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*sdk.ElicitParams(nil), e.asked...)
}

func (e *elicitor) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{ElicitationHandler: e.handle}
}

// syncBuffer is a log that tests read while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
