package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/acp"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// The secrets of the fixture's sources and model: no line the agent
// writes may hold them.
const (
	testPassword = "pw-acp-never-shown"
	testAPIKey   = "sk-acp-never-shown"
)

// waitTimeout bounds every wait of a test. It only stops a hung test, so
// it is minutes: a loaded machine is slow, not wrong.
const waitTimeout = 3 * time.Minute

// fixture is an agent in this process over a real SQLite database and the
// real model client against the scripted OpenAI-compatible server, spoken
// to by the SDK's own client side over a pipe pair. Every line the agent
// writes is also kept, for the tests of what the SDK's client would hide.
type fixture struct {
	t      testing.TB
	home   sessionio.Home
	src    sessionio.Source
	model  *llmtest.Server
	ws     *conversation.Workspace
	conn   *sdk.ClientSideConnection
	client *client
	raw    *io.PipeWriter // the agent's stdin, for lines the SDK would not send
	lines  *lineLog
	done   chan struct{} // closed when the agent's Serve has returned
	served error         // what it returned
	// modelOverride, when set, is the model instead of the scripted server.
	modelOverride conversation.Model
	// mask is the columns the source "db" masks; set it before a turn.
	mask []string
}

func newFixture(t testing.TB, steps ...llmtest.Step) *fixture {
	t.Helper()
	f := &fixture{t: t, home: sessionio.Home{Dir: t.TempDir()}, src: dbtest.SQLite(t), model: llmtest.NewServer(t, steps...),
		client: &client{}, lines: &lineLog{}}
	f.src.Name = "db"
	dbtest.Exec(t, f.src,
		"CREATE TABLE orders (id integer PRIMARY KEY, status text NOT NULL)",
		"INSERT INTO orders VALUES (1, 'delivered'), (2, 'delivered'), (3, 'pending'), (4, 'shipped')",
	)
	sources := []sessionio.Source{f.src, {Name: "other", Type: sessionio.TypePostgreSQL, Host: "127.0.0.1", Port: 1,
		Database: "x", Username: "u", Password: sessionio.Secret(testPassword)}}
	masked := func() ([]sessionio.Source, error) {
		s := slices.Clone(sources)
		s[0].Mask = f.mask
		return s, nil
	}
	f.ws = conversation.NewWorkspace(conversation.Config{
		Home:          f.home,
		Model:         f.newModel,
		Sources:       masked,
		DefaultSource: "db",
	})
	t.Cleanup(func() { f.ws.Close() })
	f.start(acp.Options{Name: "aiq-rpc", Version: "test", Home: f.home})
	return f
}

// newModel is the real model client against the scripted server. A
// question that asks for it panics, for the test of a panic in a request.
func (f *fixture) newModel() (conversation.Model, error) {
	if f.modelOverride != nil {
		return f.modelOverride, nil
	}
	m, err := llm.New(llm.Config{URL: f.model.URL, APIKey: sessionio.Secret(testAPIKey), Model: "test-model", MaxTries: 1})
	if err != nil {
		return nil, err
	}
	return panicky{m}, nil
}

type panicky struct{ conversation.Model }

func (p panicky) Complete(ctx context.Context, req conversation.Request, onText func(string)) (conversation.Reply, error) {
	if last := req.Messages[len(req.Messages)-1]; strings.Contains(last.Content, "please panic") {
		panic("a test asked for it")
	}
	return p.Model.Complete(ctx, req, onText)
}

// start serves a new agent and connects the client to it.
func (f *fixture) start(opts acp.Options) {
	toAgent, raw := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	toClient, tapOut := io.Pipe()
	f.raw = raw
	agent := acp.New(f.ws, opts)
	done := make(chan struct{})
	f.done = done
	go func() {
		f.served = agent.Serve(context.Background(), toAgent, agentOut)
		agentOut.Close()
		close(done)
	}()
	go f.lines.tap(fromAgent, tapOut)
	f.conn = sdk.NewClientSideConnection(f.client, raw, toClient)
	f.conn.SetLogger(slog.New(slog.DiscardHandler))
	// The agent saves as it ends: it must be done before the test's
	// folders are removed.
	f.t.Cleanup(func() {
		raw.Close()
		select {
		case <-done:
		case <-time.After(waitTimeout):
			f.t.Error("the agent did not stop after its input ended")
		}
	})
}

// stop ends the agent's input and waits for it to finish.
func (f *fixture) stop() error {
	f.raw.Close()
	select {
	case <-f.done:
		return f.served
	case <-time.After(waitTimeout):
		f.t.Fatal("the agent did not stop after its input ended")
		return nil
	}
}

func (f *fixture) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	f.t.Cleanup(cancel)
	return ctx
}

func (f *fixture) initialize() sdk.InitializeResponse {
	f.t.Helper()
	res, err := f.conn.Initialize(f.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "test", Version: "1"}})
	require.NoError(f.t, err)
	return res
}

// newSession initializes and opens a session on the default source.
func (f *fixture) newSession() sdk.SessionId {
	f.t.Helper()
	f.initialize()
	res, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.home.Dir, McpServers: []sdk.McpServer{}})
	require.NoError(f.t, err)
	return res.SessionId
}

func (f *fixture) prompt(id sdk.SessionId, blocks ...sdk.ContentBlock) (sdk.PromptResponse, error) {
	return f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
}

// say sends text and requires the turn to end normally.
func (f *fixture) say(id sdk.SessionId, text string) {
	f.t.Helper()
	res, err := f.prompt(id, sdk.TextBlock(text))
	require.NoError(f.t, err)
	require.Equal(f.t, sdk.StopReasonEndTurn, res.StopReason)
}

func (f *fixture) countOrders() int64 {
	return dbtest.QueryInt(f.t, f.src, "SELECT count(*) FROM orders")
}

// sendRaw writes one line to the agent as it is.
func (f *fixture) sendRaw(line string) {
	f.t.Helper()
	_, err := f.raw.Write([]byte(line + "\n"))
	require.NoError(f.t, err)
}

// response waits for the agent's response with the given id, as JSON.
func (f *fixture) response(id string) map[string]any {
	f.t.Helper()
	var found map[string]any
	f.lines.waitFor(f.t, "the response to id "+id, func(line []byte) bool {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			return false
		}
		if _, isCall := m["method"]; isCall {
			return false
		}
		got, _ := json.Marshal(m["id"])
		if string(got) != id {
			return false
		}
		found = m
		return true
	})
	return found
}

func sqlCall(id, sql string) llmtest.Step {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: "execute_sql", Arguments: string(args)}}}
}

// client is an ACP client that records what the agent sends and answers
// permission requests with permit.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	permit  func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome
	// heard, when set, hears each update instead of the list, for the
	// benchmarks.
	heard func(sdk.SessionNotification)
}

func (c *client) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	heard := c.heard
	if heard == nil {
		c.updates = append(c.updates, n)
	}
	c.mu.Unlock()
	if heard != nil {
		heard(n)
	}
	return nil
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	permit := c.permit
	c.mu.Unlock()
	if permit == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: permit(p)}, nil
}

// choose answers every permission request with the option of that id.
func (c *client) choose(option string) {
	c.mu.Lock()
	c.permit = func(sdk.RequestPermissionRequest) sdk.RequestPermissionOutcome {
		return sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(option))
	}
	c.mu.Unlock()
}

func (c *client) permissions() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.asked...)
}

// take returns the updates received so far and forgets them.
func (c *client) take() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range c.updates {
		out = append(out, n.Update)
	}
	c.updates = nil
	return out
}

// of returns the updates received for one session so far.
func (c *client) of(id sdk.SessionId) []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range c.updates {
		if n.SessionId == id {
			out = append(out, n.Update)
		}
	}
	return out
}

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, fmt.Errorf("the test client reads no files")
}

func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, fmt.Errorf("the test client writes no files")
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, fmt.Errorf("no terminals")
}

func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, fmt.Errorf("no terminals")
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, fmt.Errorf("no terminals")
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, fmt.Errorf("no terminals")
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, fmt.Errorf("no terminals")
}

// text joins the agent's message chunks among updates.
func text(updates []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// toolText is the text content of a tool call update.
func toolText(content []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text)
		}
	}
	return b.String()
}

// lineLog keeps every line the agent wrote, and passes them on to the
// client.
type lineLog struct {
	mu      sync.Mutex
	lines   [][]byte
	changed chan struct{}
}

func (l *lineLog) tap(from io.Reader, to *io.PipeWriter) {
	r := bufio.NewReaderSize(from, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			l.mu.Lock()
			l.lines = append(l.lines, append([]byte(nil), line...))
			if l.changed != nil {
				close(l.changed)
				l.changed = nil
			}
			l.mu.Unlock()
			to.Write(line)
		}
		if err != nil {
			to.CloseWithError(err)
			return
		}
	}
}

func (l *lineLog) all() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]byte(nil), l.lines...)
}

// waitFor waits until a line matches.
func (l *lineLog) waitFor(t testing.TB, what string, match func([]byte) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	seen := 0
	for {
		l.mu.Lock()
		lines := l.lines[seen:]
		seen = len(l.lines)
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		for _, line := range lines {
			if match(line) {
				return
			}
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("waited %v for %s", waitTimeout, what)
		}
	}
}

// sessionFile reads the session file an id names.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Clean(path))
	require.NoError(t, err)
	return data
}
