package editor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/rpc/editor"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// fixture is a server in this process, spoken to over a pipe pair.
type fixture struct {
	t      *testing.T
	home   sessionio.Home
	model  *modeltest.Model
	client *editortest.Client
	exit   chan int
	stdin  *io.PipeWriter
}

type fixtureOptions struct {
	model   *modeltest.Model // nil: no model configured
	tools   modeltest.Tools  // the tools of the source "test"
	confirm bool             // the client announces chat/confirm
	noInit  bool
	log     *slog.Logger // the server's log; nil: discarded
}

func start(t *testing.T, o fixtureOptions) *fixture {
	t.Helper()
	home := sessionio.Home{Dir: t.TempDir()}
	f := &fixture{t: t, home: home, model: o.model, exit: make(chan int, 1)}
	cfg := conversation.Config{
		Home: home,
		Sources: func() ([]sessionio.Source, error) {
			return []sessionio.Source{{Name: "test", Type: "sqlite", Database: "test.db"}, {Name: "other", Type: "postgresql", Host: "db", Port: 5432, Password: "hunter2"}}, nil
		},
		OpenToolbox: func(ctx context.Context, src sessionio.Source, confirm conversation.Confirmer) (conversation.Toolbox, error) {
			if src.Name == "other" {
				return nil, errors.New("connection refused")
			}
			return testBox{tools: o.tools, confirm: confirm}, nil
		},
		DefaultSource: "test",
	}
	if o.model != nil {
		cfg.Model = func() (conversation.Model, error) { return o.model, nil }
	}
	ws := conversation.NewWorkspace(cfg)
	server := editor.NewServer(ws, editor.Options{Name: "aiq-rpc", Version: "test", Home: home, ModelConfigured: o.model != nil, Log: o.log})
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	f.stdin = clientOut
	served := make(chan struct{})
	go func() {
		defer close(served)
		f.exit <- server.Serve(context.Background(), toServer, fromServer)
	}()
	f.client = editortest.New(t, clientIn, clientOut)
	// The server's last writes (what waits for an answer to be out, the
	// saves at the end) go before the home is removed.
	t.Cleanup(func() { clientOut.Close(); waitServed(t, served) })
	if !o.noInit {
		var res map[string]any
		f.client.Result("initialize", map[string]any{"capabilities": map[string]bool{"confirm": o.confirm}}, &res)
	}
	return f
}

// testBox is a toolbox of function tools; the tool "confirm_write" asks
// the user as a real write would.
type testBox struct {
	tools   modeltest.Tools
	confirm conversation.Confirmer
}

func (b testBox) Specs() []conversation.ToolSpec { return b.all().Specs() }

func (b testBox) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	return b.all().Run(ctx, name, args)
}

func (b testBox) Describe(ctx context.Context) string { return "The database is a test double." }

func (b testBox) all() modeltest.Tools {
	all := modeltest.Tools{
		"confirm_write": func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ SQL string }
			json.Unmarshal(args, &a)
			d, err := b.confirm(ctx, conversation.ConfirmRequest{Tool: "execute_sql", SQL: a.SQL, Risk: "write", Reason: "DELETE removes rows."})
			if err != nil {
				return map[string]string{"status": "rejected", "error": err.Error()}, nil
			}
			return map[string]string{"decision": string(d)}, nil
		},
	}
	for name, fn := range b.tools {
		all[name] = fn
	}
	return all
}

func sqlTool(rows int) modeltest.ToolFunc {
	return func(ctx context.Context, args json.RawMessage) (any, error) {
		var a struct{ SQL string }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		st := conversation.Statement{SQL: a.SQL, Status: "success", RowCount: int64(rows), Columns: []string{"id", "name"}, Rows: [][]any{}}
		for i := range rows {
			st.Rows = append(st.Rows, []any{i + 1, fmt.Sprintf("name %d", i+1)})
		}
		return conversation.SQLResult{Statement: st, ForModel: map[string]any{"status": "success", "row_count": rows, "columns": st.Columns}}, nil
	}
}

func errorCode(t *testing.T, m editortest.Message) int {
	t.Helper()
	require.NotNil(t, m.Error, "want an error, got result %s", m.Result)
	return m.Error.Code
}

func TestRequestBeforeInitialize(t *testing.T) {
	f := start(t, fixtureOptions{noInit: true})
	m := f.client.Call("session/new", nil)
	assert.Equal(t, -32002, errorCode(t, m))
	assert.Contains(t, m.Error.Message, "initialize first")
	var res struct {
		ProtocolVersion int `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
		Capabilities    struct{ Methods []string }
		Home            string
		ModelConfigured bool
		Sources         []map[string]any
	}
	f.client.Result("initialize", map[string]any{"clientInfo": map[string]string{"name": "test"}}, &res)
	assert.Equal(t, 1, res.ProtocolVersion)
	assert.Equal(t, "aiq-rpc", res.ServerInfo.Name)
	assert.Contains(t, res.Capabilities.Methods, "chat/turn")
	assert.Equal(t, f.home.Dir, res.Home)
	assert.False(t, res.ModelConfigured)
	require.Len(t, res.Sources, 2)
	assert.NotContains(t, fmt.Sprint(res.Sources), "hunter2")
	assert.Equal(t, -32600, errorCode(t, f.client.Call("initialize", nil)), "a second initialize")
}

func TestShutdownThenExit(t *testing.T) {
	f := start(t, fixtureOptions{model: &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("hi")}}})
	var turn conversation.Answer
	f.client.Result("chat/turn", map[string]any{"query": "hello"}, &turn)
	var info conversation.Info
	f.client.Result("session/new", nil, &info)
	var res struct{ Saved []conversation.Saved }
	f.client.Result("shutdown", nil, &res)
	assert.Empty(t, res.Saved, "the turn was saved when it ended; the new session has nothing to save")
	assert.Equal(t, -32600, errorCode(t, f.client.Call("session/list", nil)), "requests after shutdown")
	f.client.Notify("exit", nil)
	assert.Equal(t, 0, <-f.exit)
}

func TestExitWithoutShutdown(t *testing.T) {
	f := start(t, fixtureOptions{})
	f.client.Notify("exit", nil)
	assert.Equal(t, 1, <-f.exit)
}

func TestEndOfInputSavesSessions(t *testing.T) {
	f := start(t, fixtureOptions{})
	var info conversation.Info
	f.client.Result("session/new", nil, &info)
	f.client.Result("chat/clear", map[string]string{"sessionId": info.SessionID}, nil)
	var other conversation.Info
	f.client.Result("session/new", nil, &other)
	f.client.Result("session/setSource", map[string]string{"sessionId": other.SessionID, "source": ""}, nil)
	f.stdin.Close()
	assert.Equal(t, 0, <-f.exit)
	list, err := conversation.ListSessions(f.home.SessionsDir())
	require.NoError(t, err)
	assert.Len(t, list, 2, "the cleared session and the one whose source changed")
}

func TestTurnStreamsProgressBeforeResponse(t *testing.T) {
	model := &modeltest.Model{Steps: []modeltest.Step{
		modeltest.Call("c1", "execute_sql", `{"sql":"SELECT id, name FROM t"}`),
		{Text: strings.SplitAfter("There are three rows in t, numbered one to three.", " ")},
	}}
	f := start(t, fixtureOptions{model: model, tools: modeltest.Tools{"execute_sql": sqlTool(3)}})
	id := f.client.Start("chat/turn", map[string]any{
		"query":     "what is in t?",
		"selection": map[string]any{"text": "SELECT * FROM t", "languageId": "sql"},
	})
	resp := f.client.Wait(id)
	require.Nil(t, resp.Error)
	var ans conversation.Answer
	require.NoError(t, json.Unmarshal(resp.Result, &ans))
	assert.Equal(t, "end_turn", ans.StopReason)
	assert.Equal(t, "There are three rows in t, numbered one to three.", ans.Answer)
	require.Len(t, ans.Statements, 1)
	assert.Equal(t, int64(3), ans.Statements[0].RowCount)
	assert.Len(t, ans.Statements[0].Rows, 3)

	// Every notification of the turn comes before its response.
	var kinds []string
	var text strings.Builder
	var firstText string
	for _, m := range f.client.Messages() {
		if m.IsResponse() && string(m.ID) == string(id) {
			break
		}
		if m.Method != "chat/progress" {
			continue
		}
		var p struct {
			SessionID string
			RequestID json.RawMessage
			conversation.Event
		}
		require.NoError(t, json.Unmarshal(m.Params, &p))
		assert.Equal(t, ans.SessionID, p.SessionID)
		assert.JSONEq(t, string(id), string(p.RequestID))
		kinds = append(kinds, p.Kind)
		if p.Kind == "text" && text.Len() == 0 {
			firstText = p.Text
		}
		text.WriteString(p.Text)
		if p.Kind == "tool_call" {
			assert.Equal(t, "SELECT id, name FROM t", p.SQL)
		}
		if p.Kind == "tool_result" {
			require.NotNil(t, p.Statement)
			assert.Len(t, p.Statement.Rows, 3)
		}
	}
	require.GreaterOrEqual(t, len(kinds), 3)
	assert.Equal(t, []string{"tool_call", "tool_result"}, kinds[:2])
	for _, k := range kinds[2:] {
		assert.Equal(t, "text", k)
	}
	// The first word goes out alone, at once; the rest of an instant
	// stream is coalesced, one frame at a time.
	assert.Less(t, len(kinds)-2, len(strings.Fields(ans.Answer)), "the text is coalesced")
	assert.Equal(t, ans.Answer, text.String())
	assert.Equal(t, "There ", firstText)

	// The model saw the selection in a fenced sql block.
	user := model.Requests()[0].Messages[1]
	assert.Equal(t, "what is in t?\n\n```sql\nSELECT * FROM t\n```", user.Content)

	// The turn was saved, in a file the CLI loads.
	require.NotEmpty(t, ans.SavedTo)
	data, err := os.ReadFile(ans.SavedTo)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	assert.Equal(t, f.home.SessionsDir(), filepath.Dir(ans.SavedTo))
}

func TestHistory(t *testing.T) {
	model := &modeltest.Model{Steps: []modeltest.Step{
		modeltest.Call("c1", "execute_sql", `{"sql":"SELECT 1"}`), modeltest.Answer("one"),
		modeltest.Answer("two"),
	}}
	f := start(t, fixtureOptions{model: model, tools: modeltest.Tools{"execute_sql": sqlTool(1)}})
	var info conversation.Info
	f.client.Result("session/new", nil, &info)
	for _, q := range []string{"first", "second"} {
		f.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": q}, nil)
	}
	var turns conversation.History
	f.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, &turns)
	require.Len(t, turns.Turns, 4)
	assert.Equal(t, "first", turns.Turns[0].Content)
	assert.Equal(t, "two", turns.Turns[3].Content)
	assert.False(t, turns.Turns[0].Timestamp.IsZero())
	var full struct{ Messages []map[string]any }
	f.client.Result("chat/history", map[string]any{"sessionId": info.SessionID, "detail": "full"}, &full)
	require.Len(t, full.Messages, 6, "user, assistant call, tool, assistant, user, assistant")
	assert.Equal(t, "c1", full.Messages[2]["tool_call_id"])
	assert.Equal(t, -32602, errorCode(t, f.client.Call("chat/history", map[string]any{"sessionId": info.SessionID, "detail": "all"})))

	var cleared conversation.Saved
	f.client.Result("chat/clear", map[string]any{"sessionId": info.SessionID}, &cleared)
	f.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, &turns)
	assert.Empty(t, turns.Turns)
	s, _, err := conversation.Load(cleared.Path)
	require.NoError(t, err)
	assert.Zero(t, s.Turns(), "clear is saved")
}

func TestSessionMethods(t *testing.T) {
	f := start(t, fixtureOptions{model: &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("hi")}}})
	var info conversation.Info
	f.client.Result("session/new", map[string]string{"source": "test"}, &info)
	assert.Equal(t, "test", info.Source)
	assert.Equal(t, "sqlite", info.DatabaseType)
	f.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "hello"}, nil)

	path := filepath.Join(t.TempDir(), "mine.json")
	var saved conversation.Saved
	f.client.Result("session/save", map[string]string{"sessionId": info.SessionID, "path": path}, &saved)
	assert.Equal(t, path, saved.Path)
	assert.Equal(t, "Run 'aiq -s "+path+"' to continue.", saved.Hint)

	var loaded struct {
		conversation.LoadInfo
		Sources []map[string]any
	}
	f.client.Result("session/load", map[string]string{"path": path}, &loaded)
	assert.NotEqual(t, info.SessionID, loaded.SessionID)
	assert.Equal(t, 1, loaded.Turns)
	assert.True(t, loaded.SourceAvailable)
	assert.Len(t, loaded.Sources, 2)

	// A loaded session saves back to its file.
	f.client.Result("session/setSource", map[string]string{"sessionId": loaded.SessionID, "source": ""}, nil)
	f.client.Result("session/save", map[string]string{"sessionId": loaded.SessionID}, &saved)
	assert.Equal(t, path, saved.Path)
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "", s.Source, "no database now")

	var list struct{ Sessions []conversation.Listed }
	f.client.Result("session/list", nil, &list)
	require.Len(t, list.Sessions, 1, "the turn's autosave; mine.json is elsewhere")
	assert.Equal(t, "hello", list.Sessions[0].FirstQuestion)
	var latest struct{ Sessions []conversation.Listed }
	f.client.Result("session/list", map[string]string{"latestFor": list.Sessions[0].Source}, &latest)
	require.Len(t, latest.Sessions, 1, "latestFor gives the latest session of the source")
	assert.Equal(t, list.Sessions[0].Path, latest.Sessions[0].Path)
	assert.True(t, latest.Sessions[0].Latest)
	f.client.Result("session/list", map[string]string{"latestFor": "nowhere"}, &latest)
	assert.Empty(t, latest.Sessions, "no session on that source")
	assert.Equal(t, -32602, errorCode(t, f.client.Call("session/list", map[string]int{"latestFor": 3})))

	var refreshed conversation.Info
	f.client.Result("schema/refresh", map[string]string{"sessionId": info.SessionID}, &refreshed)
	assert.Equal(t, "test", refreshed.Source)

	f.client.Result("session/close", map[string]string{"sessionId": loaded.SessionID}, nil)
	assert.Equal(t, -32001, errorCode(t, f.client.Call("chat/history", map[string]string{"sessionId": loaded.SessionID})))
}

func TestLoadSourceGone(t *testing.T) {
	f := start(t, fixtureOptions{})
	path := filepath.Join(t.TempDir(), "gone.json")
	s := conversation.NewSession("dropped", "mysql", time.Now())
	data, _, err := s.Encode()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	var loaded struct {
		conversation.LoadInfo
		Sources []map[string]any
	}
	f.client.Result("session/load", map[string]string{"path": path}, &loaded)
	assert.False(t, loaded.SourceAvailable)
	assert.Len(t, loaded.Sources, 2)
	assert.NotEmpty(t, loaded.Warnings)
}

func TestErrorCodes(t *testing.T) {
	f := start(t, fixtureOptions{})
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(`{"metadata": 42}`), 0o600))
	large := filepath.Join(dir, "large.json")
	require.NoError(t, os.WriteFile(large, nil, 0o600))
	require.NoError(t, os.Truncate(large, 70<<20)) // sparse: over the ceiling at no cost
	var info conversation.Info
	f.client.Result("session/new", nil, &info)
	cases := []struct {
		name   string
		method string
		params any
		code   int
		says   string
	}{
		{"unknown method", "chat/explode", nil, -32601, "unknown method"},
		{"unknown session", "chat/history", map[string]string{"sessionId": "s999"}, -32001, "session/new"},
		{"wrong param type", "session/load", map[string]any{"path": 7}, -32602, "path must be a string"},
		{"missing param", "session/load", map[string]any{}, -32602, "path is required"},
		{"params not an object", "session/new", []int{1}, -32602, "must be an object"},
		{"invalid session file", "session/load", map[string]string{"path": broken}, -32010, "metadata"},
		{"folder as session file", "session/load", map[string]string{"path": dir}, -32010, dir},
		{"missing session file", "session/load", map[string]string{"path": filepath.Join(dir, "none.json")}, -32010, "There is no session file at " + filepath.Join(dir, "none.json")},
		{"session too large", "session/load", map[string]string{"path": large}, -32011, "70.0 MiB is over the 64.0 MiB that aiq-rpc opens"},
		{"save onto a folder", "session/save", map[string]string{"sessionId": info.SessionID, "path": dir}, -32602, dir + " is a folder"},
		{"save into a missing folder", "session/save", map[string]string{"sessionId": info.SessionID, "path": filepath.Join(dir, "nope", "s.json")}, -32602, "The folder " + filepath.Join(dir, "nope") + " does not exist"},
		{"unknown source", "session/new", map[string]string{"source": "nope"}, -32012, "nope"},
		{"source that cannot open", "chat/turn", map[string]any{"sessionId": mustNew(t, f, "other"), "query": "SELECT 1"}, -32012, "connection refused"},
		{"no model", "chat/turn", map[string]any{"sessionId": info.SessionID, "query": "how many rows?"}, -32021, "config.yaml"},
		{"no question", "chat/turn", map[string]any{"sessionId": info.SessionID}, -32602, "query"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := f.client.Call(c.method, c.params)
			assert.Equal(t, c.code, errorCode(t, m), m.Error.Message)
			assert.Contains(t, m.Error.Message, c.says)
			assert.NotContains(t, m.Error.Message, "hunter2")
			assert.NotContains(t, m.Error.Message, "invalid request:", "the sentinel is for the code, not the user")
			assert.NotContains(t, m.Error.Message, "save session ")
			if c.code <= -32001 && c.code >= -32099 {
				// One sentence for the user; the steps that led to it are
				// the data's detail.
				assert.NotContains(t, m.Error.Message, c.method+":", "no method in the user's sentence")
				for _, internal := range []string{"load session ", "invalid session file:", "run turn:", "not available: open"} {
					assert.NotContains(t, m.Error.Message, internal)
				}
				assert.Regexp(t, `^[A-Z].*\.$`, m.Error.Message, "a sentence")
				var data struct{ Detail string }
				require.NoError(t, json.Unmarshal(m.Error.Data, &data), "data: %s", m.Error.Data)
				assert.True(t, strings.HasPrefix(data.Detail, c.method+": "), "the detail names the method: %q", data.Detail)
			}
		})
	}
	_, err := os.Stat(broken)
	assert.NoError(t, err, "a bad file is left alone")
}

func mustNew(t *testing.T, f *fixture, source string) string {
	var info conversation.Info
	f.client.Result("session/new", map[string]string{"source": source}, &info)
	return info.SessionID
}

func TestModelError(t *testing.T) {
	f := start(t, fixtureOptions{model: &modeltest.Model{Steps: []modeltest.Step{{Err: httpError{429, 3 * time.Second}}}}})
	m := f.client.Call("chat/turn", map[string]any{"query": "hi"})
	assert.Equal(t, -32020, errorCode(t, m))
	assert.JSONEq(t, `{"status":429,"retryAfter":3,"detail":"chat/turn: run turn: model request 1: the endpoint answered 429"}`, string(m.Error.Data))
	assert.Equal(t, "The endpoint answered 429.", m.Error.Message, "the endpoint's sentence, without the steps")
}

type httpError struct {
	status int
	after  time.Duration
}

func (e httpError) Error() string                  { return fmt.Sprintf("the endpoint answered %d", e.status) }
func (e httpError) HTTPStatus() int                { return e.status }
func (e httpError) RetryAfterDelay() time.Duration { return e.after }

func TestBusyAndCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	model := &modeltest.Model{Respond: func(req conversation.Request) modeltest.Step {
		started <- struct{}{}
		return modeltest.Step{Hold: true}
	}}
	f := start(t, fixtureOptions{model: model})
	var info conversation.Info
	f.client.Result("session/new", nil, &info)
	before, _ := os.ReadDir(f.home.SessionsDir())
	id := f.client.Start("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "wait"})
	<-started
	assert.Equal(t, -32030, errorCode(t, f.client.Call("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "again"})))
	// The history of a busy session still reads.
	f.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, nil)

	sent := time.Now()
	f.client.Notify("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
	// The model holds its answer until cancelled: any answer at all means
	// the cancel reached it; the client's deadline keeps a regression from
	// hanging.
	resp := f.client.Wait(id)
	require.Nil(t, resp.Error)
	var ans conversation.Answer
	require.NoError(t, json.Unmarshal(resp.Result, &ans))
	assert.Equal(t, "cancelled", ans.StopReason)
	t.Logf("cancel answered in %v", time.Since(sent))

	var h conversation.History
	f.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, &h)
	assert.Empty(t, h.Turns, "a cancelled turn leaves the history as it was")
	after, _ := os.ReadDir(f.home.SessionsDir())
	assert.Equal(t, len(before), len(after), "and saves nothing")
}

func TestPanicInTool(t *testing.T) {
	model := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "boom", `{}`), modeltest.Answer("after")}}
	f := start(t, fixtureOptions{model: model, tools: modeltest.Tools{"boom": func(ctx context.Context, args json.RawMessage) (any, error) {
		panic("tool exploded")
	}}})
	m := f.client.Call("chat/turn", map[string]any{"query": "explode"})
	assert.Equal(t, -32603, errorCode(t, m))
	assert.Contains(t, m.Error.Message, "tool exploded")
	var ans conversation.Answer
	f.client.Result("chat/turn", map[string]any{"query": "and now?"}, &ans)
	assert.Equal(t, "after", ans.Answer)
}

func TestConfirm(t *testing.T) {
	for _, decision := range []string{"allow_once", "reject"} {
		t.Run(decision, func(t *testing.T) {
			model := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "confirm_write", `{"sql":"DELETE FROM t"}`), modeltest.Answer("done")}}
			f := start(t, fixtureOptions{model: model, confirm: true})
			var asked []map[string]any
			var mu sync.Mutex
			f.client.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
				var p map[string]any
				json.Unmarshal(params, &p)
				mu.Lock()
				asked = append(asked, p)
				mu.Unlock()
				return map[string]string{"decision": decision}, nil
			})
			var ans conversation.Answer
			f.client.Result("chat/turn", map[string]any{"query": "delete it"}, &ans)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, asked, 1)
			assert.Equal(t, "DELETE FROM t", asked[0]["sql"])
			assert.Equal(t, ans.SessionID, asked[0]["sessionId"])
			tool := model.Requests()[1].Messages[3]
			inner, ok := guard.Unfence(tool.Content)
			require.True(t, ok, "the tool result is fenced as data: %s", tool.Content)
			assert.JSONEq(t, fmt.Sprintf(`{"decision":%q}`, decision), inner)
		})
	}
	t.Run("client cannot confirm", func(t *testing.T) {
		model := &modeltest.Model{Steps: []modeltest.Step{modeltest.Call("c1", "confirm_write", `{"sql":"DELETE FROM t"}`), modeltest.Answer("done")}}
		f := start(t, fixtureOptions{model: model})
		f.client.Result("chat/turn", map[string]any{"query": "delete it"}, nil)
		tool := model.Requests()[1].Messages[3]
		assert.Contains(t, tool.Content, "cannot ask the user to confirm")
	})
}

// TestManySessions runs 50 sessions of 20 turns at once, with history,
// clear and save calls in between; every file loads afterwards.
func TestManySessions(t *testing.T) {
	sessions, turns := 50, 20
	if testing.Short() {
		sessions, turns = 10, 5
	}
	model := &modeltest.Model{Forget: true, Respond: func(req conversation.Request) modeltest.Step {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == conversation.RoleTool {
			return modeltest.Answer("done: " + last.Content)
		}
		return modeltest.Call("c", "execute_sql", `{"sql":"SELECT 1"}`)
	}}
	f := start(t, fixtureOptions{model: model, tools: modeltest.Tools{"execute_sql": sqlTool(2)}})
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Go(func() {
			errs <- runSession(f, i, turns)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	list, err := conversation.ListSessions(f.home.SessionsDir())
	require.NoError(t, err)
	require.Len(t, list, sessions)
	for _, l := range list {
		assert.Empty(t, l.Error)
		data, err := os.ReadFile(l.Path)
		require.NoError(t, err)
		assert.NoError(t, sessiontest.CheckCLILoadRules(data), l.Path)
	}
}

func runSession(f *fixture, n, turns int) error {
	var info conversation.Info
	if err := call(f, "session/new", nil, &info); err != nil {
		return err
	}
	id := info.SessionID
	for turn := range turns {
		var ans conversation.Answer
		if err := call(f, "chat/turn", map[string]any{"sessionId": id, "query": fmt.Sprintf("session %d turn %d", n, turn)}, &ans); err != nil {
			return err
		}
		if len(ans.Statements) != 1 || ans.SavedTo == "" {
			return fmt.Errorf("turn %d of session %d: %+v", turn, n, ans)
		}
		switch turn % 7 {
		case 3:
			if err := call(f, "chat/history", map[string]any{"sessionId": id, "detail": "full"}, nil); err != nil {
				return err
			}
		case 5:
			if err := call(f, "session/save", map[string]any{"sessionId": id}, nil); err != nil {
				return err
			}
		case 6:
			if err := call(f, "chat/clear", map[string]any{"sessionId": id}, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func call(f *fixture, method string, params, result any) error {
	m := f.client.Call(method, params)
	if m.Error != nil {
		return fmt.Errorf("%s: %w", method, m.Error)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(m.Result, result)
}
