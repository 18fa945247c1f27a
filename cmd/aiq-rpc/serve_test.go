package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// The methods of protocol version 1 that initialize must list.
var protocolMethods = []string{
	"chat/clear", "chat/history", "chat/turn", "initialize", "session/close", "session/list",
	"session/load", "session/new", "session/save", "session/setSource", "shutdown", "sources/list",
}

func TestInitialize(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHome(t).withModel(t, srv.URL)
	p := startProc(t, h, procOptions{})
	res := p.initialize(map[string]any{"clientInfo": map[string]string{"name": "test", "version": "1"}})
	assert.Equal(t, 1, res.ProtocolVersion)
	assert.Equal(t, "aiq-rpc", res.ServerInfo.Name)
	_, out, _ := runCommand(t, "", nil, "--version")
	assert.Equal(t, "aiq-rpc "+res.ServerInfo.Version+"\n", out, "initialize and --version report one version")
	assert.Subset(t, res.Capabilities.Methods, protocolMethods)
	assert.True(t, slices.IsSorted(res.Capabilities.Methods), "the methods are sorted: %v", res.Capabilities.Methods)
	assert.Equal(t, h.Dir, res.Home)
	assert.True(t, res.ModelConfigured, "config.yaml names a model")
	assert.Empty(t, res.Warnings)
	require.Len(t, res.Sources, 2)
	assert.Equal(t, map[string]any{"name": "shop", "type": "postgresql", "host": "db.example", "port": 5432.0, "database": "shop"}, res.Sources[0],
		"a source shows no username and no password")
	assert.Equal(t, "local", res.Sources[1]["name"])
	assert.Empty(t, srv.Requests(), "initialize does not call the model")

	// Without config.yaml, no model.
	bare := startProc(t, newHome(t), procOptions{})
	assert.False(t, bare.initialize(nil).ModelConfigured)
}

func TestInitializeReadsAIQHome(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{noHome: true, env: []string{"AIQ_HOME=" + h.Dir}})
	res := p.initialize(nil)
	assert.Equal(t, h.Dir, res.Home)
	assert.Len(t, res.Sources, 2, "the sources of $AIQ_HOME/config/sources.yaml")
}

func TestSessionMethods(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)

	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	assert.NotEmpty(t, info.SessionID)
	assert.Equal(t, "", info.Source, "with two sources and no --source, a new session has no database")
	assert.Zero(t, info.Turns)

	var shop conversation.Info
	p.client.Result("session/new", map[string]string{"source": "shop"}, &shop)
	assert.NotEqual(t, info.SessionID, shop.SessionID)
	assert.Equal(t, "shop", shop.Source)
	assert.Equal(t, "postgresql", shop.DatabaseType)

	var moved conversation.Info
	p.client.Result("session/setSource", map[string]string{"sessionId": shop.SessionID, "source": "local"}, &moved)
	assert.Equal(t, "local", moved.Source)
	assert.Equal(t, "sqlite", moved.DatabaseType)

	path := filepath.Join(t.TempDir(), "mine.json")
	var saved conversation.Saved
	p.client.Result("session/save", map[string]string{"sessionId": shop.SessionID, "path": path}, &saved)
	assert.Equal(t, path, saved.Path)
	assert.Equal(t, "Run 'aiq -s "+path+"' to continue.", saved.Hint)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	var loaded struct {
		conversation.LoadInfo
		Sources []map[string]any `json:"sources"`
	}
	p.client.Result("session/load", map[string]string{"path": path}, &loaded)
	assert.NotEqual(t, shop.SessionID, loaded.SessionID, "a load opens another session")
	assert.Equal(t, path, loaded.Path)
	assert.Equal(t, "local", loaded.Source)
	assert.True(t, loaded.SourceAvailable)
	assert.Empty(t, loaded.Warnings)
	assert.Len(t, loaded.Sources, 2)

	// Saving without a path creates a file in the sessions folder.
	var auto conversation.Saved
	p.client.Result("session/save", map[string]string{"sessionId": info.SessionID}, &auto)
	assert.Equal(t, h.sessionsDir(), filepath.Dir(auto.Path))

	var list struct {
		Sessions []conversation.Listed `json:"sessions"`
	}
	p.client.Result("session/list", nil, &list)
	require.Len(t, list.Sessions, 1, "mine.json is outside the sessions folder")
	assert.Equal(t, auto.Path, list.Sessions[0].Path)
	assert.Empty(t, list.Sessions[0].Error)

	var closed conversation.Saved
	p.client.Result("session/close", map[string]string{"sessionId": loaded.SessionID}, &closed)
	assert.Equal(t, path, closed.Path)
	m := p.client.Call("chat/history", map[string]string{"sessionId": loaded.SessionID})
	assert.Equal(t, -32001, errorCode(t, m), "a closed session is gone")
	assert.Contains(t, m.Error.Message, loaded.SessionID)
}

// progressParams are the params of a chat/progress notification.
type progressParams struct {
	SessionID string          `json:"sessionId"`
	RequestID json.RawMessage `json:"requestId"`
	conversation.Event
}

// turnProgress returns the chat/progress notifications of request id,
// failing when one comes after the response.
func turnProgress(t *testing.T, c *editortest.Client, id json.RawMessage) []progressParams {
	t.Helper()
	var out []progressParams
	answered := false
	for _, m := range c.Messages() {
		if m.IsResponse() && string(m.ID) == string(id) {
			answered = true
			continue
		}
		if m.Method != "chat/progress" {
			continue
		}
		var p progressParams
		require.NoError(t, json.Unmarshal(m.Params, &p))
		if string(p.RequestID) != string(id) {
			continue
		}
		require.False(t, answered, "a chat/progress notification came after the response: %s", m.Raw)
		out = append(out, p)
	}
	require.True(t, answered, "no response to %s", id)
	return out
}

func TestChatTurnHistoryClear(t *testing.T) {
	answer := "There are forty two rows, counted twice."
	srv := llmtest.NewServer(t, llmtest.Step{Text: answer}, llmtest.Step{Text: "Second answer."})
	h := newHome(t).withModel(t, srv.URL)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)

	id := p.client.Start("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "how many rows?"})
	resp := p.client.Wait(id)
	require.Nil(t, resp.Error, "chat/turn: %s", resp.Raw)
	var ans conversation.Answer
	require.NoError(t, json.Unmarshal(resp.Result, &ans))
	assert.Equal(t, info.SessionID, ans.SessionID)
	assert.Equal(t, "end_turn", ans.StopReason)
	assert.Equal(t, answer, ans.Answer)
	assert.Empty(t, ans.Statements)
	assert.Empty(t, ans.Warnings)
	assert.Equal(t, h.sessionsDir(), filepath.Dir(ans.SavedTo), "a turn autosaves to the sessions folder")

	var text strings.Builder
	progress := turnProgress(t, p.client, id)
	require.NotEmpty(t, progress, "the answer streams as chat/progress before the response")
	for _, e := range progress {
		assert.Equal(t, info.SessionID, e.SessionID)
		assert.Equal(t, "text", e.Kind)
		text.WriteString(e.Text)
	}
	assert.Equal(t, answer, text.String())

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer "+testAPIKey, reqs[0].Authorization, "the key of config.yaml")
	assert.Equal(t, "test-model", reqs[0].Model)
	assert.Equal(t, "how many rows?", reqs[0].Messages[len(reqs[0].Messages)-1].Content)

	var second conversation.Answer
	p.client.Result("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "and now?"}, &second)
	assert.Equal(t, ans.SavedTo, second.SavedTo, "later turns save to the same file")
	reqs = srv.Requests()
	require.Len(t, reqs, 2)
	assert.True(t, slices.ContainsFunc(reqs[1].Messages, func(m llmtest.Message) bool { return m.Content == answer }),
		"the second request carries the first turn")

	var hist conversation.History
	p.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, &hist)
	require.Len(t, hist.Turns, 4)
	assert.Equal(t, []string{"user", "assistant", "user", "assistant"}, roles(hist.Turns))
	assert.Equal(t, "how many rows?", hist.Turns[0].Content)
	assert.Equal(t, "Second answer.", hist.Turns[3].Content)
	assert.False(t, hist.Turns[1].Timestamp.IsZero())
	assert.Empty(t, hist.Messages, "detail turns has no messages")

	var full struct {
		Messages []map[string]any `json:"messages"`
		Turns    []any            `json:"turns"`
	}
	p.client.Result("chat/history", map[string]any{"sessionId": info.SessionID, "detail": "full"}, &full)
	require.Len(t, full.Messages, 4)
	assert.Equal(t, "user", full.Messages[0]["role"])
	assert.Equal(t, answer, full.Messages[1]["content"])
	assert.Empty(t, full.Turns)

	var cleared conversation.Saved
	p.client.Result("chat/clear", map[string]any{"sessionId": info.SessionID}, &cleared)
	assert.Equal(t, ans.SavedTo, cleared.Path)
	p.client.Result("chat/history", map[string]any{"sessionId": info.SessionID}, &hist)
	assert.Empty(t, hist.Turns)
	s, _, err := conversation.Load(cleared.Path)
	require.NoError(t, err)
	assert.Zero(t, s.Turns(), "a clear is saved at once")
}

func roles(entries []conversation.HistoryEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Role)
	}
	return out
}

func TestSourcesListShowsNoPassword(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	m := p.client.Call("sources/list", nil)
	require.Nil(t, m.Error)
	var res struct {
		Sources []map[string]any `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &res))
	require.Len(t, res.Sources, 2)
	assert.Equal(t, "shop", res.Sources[0]["name"])
	assert.Equal(t, 5432.0, res.Sources[0]["port"])
	for _, s := range res.Sources {
		assert.NotContains(t, s, "password")
		assert.NotContains(t, s, "username")
	}
	assert.NotContains(t, string(m.Raw), testPassword)
	p.closeStdin()
	assert.Equal(t, 0, p.wait())
	// startProc's cleanup checks every frame and stderr for the secrets.
}

func TestShutdownThenExit(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "local"}, nil)
	var res struct {
		Saved []conversation.Saved `json:"saved"`
	}
	p.client.Result("shutdown", nil, &res)
	require.Len(t, res.Saved, 1, "shutdown saves the session with changes")
	assert.Equal(t, info.SessionID, res.Saved[0].SessionID)
	assert.Equal(t, []string{res.Saved[0].Path}, h.sessionFiles(t))
	m := p.client.Call("session/list", nil)
	assert.Equal(t, -32600, errorCode(t, m), "only exit after shutdown")
	p.client.Notify("exit", nil)
	assert.Equal(t, 0, p.wait())
	p.assertOnlyFrames()
}

func TestExitWithoutShutdown(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "shop"}, nil)
	p.client.Notify("exit", nil)
	assert.Equal(t, 1, p.wait(), "exit without shutdown is status 1")
	assert.Len(t, h.sessionFiles(t), 1, "the session is saved all the same")
}

func TestEndOfInputSavesAndExits(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var a, b conversation.Info
	p.client.Result("session/new", nil, &a)
	p.client.Result("session/setSource", map[string]string{"sessionId": a.SessionID, "source": "shop"}, nil)
	p.client.Result("session/new", nil, &b) // no changes: nothing to save
	p.closeStdin()
	assert.Equal(t, 0, p.wait())
	assert.ErrorIs(t, p.client.Closed(), io.EOF, "the server closes its output")
	files := h.sessionFiles(t)
	require.Len(t, files, 1, "the session with changes, only")
	s, _, err := conversation.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, "shop", s.Source)
	assert.Contains(t, p.stderr.String(), "saved session")
	p.assertOnlyFrames()
}

func TestSIGTERMSavesAndExits(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "local"}, nil)
	p.signal(syscall.SIGTERM)
	assert.Equal(t, 0, p.wait(), "a signal with everything saved is a clean stop")
	files := h.sessionFiles(t)
	require.Len(t, files, 1, "the session with changes is saved before the process ends")
	s, _, err := conversation.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, "local", s.Source)
	assert.Contains(t, p.stderr.String(), "stopping")
	p.assertOnlyFrames()
}

// cliFreeMode writes the AIQ CLI's own no-database session file and
// returns its path and its turns.
func cliFreeMode(t *testing.T) (string, int) {
	t.Helper()
	data := sessiontest.CLIFiles()["cli-free-mode.session.json"]
	require.NotEmpty(t, data)
	path := filepath.Join(t.TempDir(), "cli.session.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	require.NotZero(t, s.Turns())
	return path, s.Turns()
}

func TestRestoreSession(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "Continued."})
	h := newHome(t).withModel(t, srv.URL)
	path, turns := cliFreeMode(t)
	p := startProc(t, h, procOptions{args: []string{"-s", path}})
	res := p.initialize(nil)
	assert.Empty(t, res.Warnings)
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "go on"}, &ans)
	assert.Equal(t, path, ans.SavedTo, "a turn without sessionId continues the -s session and saves back to its file")
	assert.Empty(t, h.sessionFiles(t), "nothing is written to the sessions folder")
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Equal(t, turns+1, s.Turns())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.True(t, slices.ContainsFunc(reqs[0].Messages, func(m llmtest.Message) bool { return m.Content == "hi free mode" }),
		"the model sees the restored history")

	var hist conversation.History
	p.client.Result("chat/history", map[string]any{"sessionId": ans.SessionID}, &hist)
	assert.Len(t, hist.Turns, 2*(turns+1))

	// The long flag does the same.
	p2 := startProc(t, h, procOptions{args: []string{"--session", path}})
	p2.initialize(nil)
	var hist2 conversation.History
	p2.client.Result("chat/history", map[string]any{"sessionId": ans.SessionID}, &hist2)
	assert.Len(t, hist2.Turns, 2*(turns+1), "the first session id of a process is the restored one")
}

func TestRestoreInvalidSession(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "Fresh start."})
	h := newHome(t).withModel(t, srv.URL)
	bad := filepath.Join(t.TempDir(), "broken.json")
	const broken = `{"metadata": "not an object"}`
	require.NoError(t, os.WriteFile(bad, []byte(broken), 0o600))
	p := startProc(t, h, procOptions{args: []string{"-s", bad}})
	res := p.initialize(nil)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "could not be restored")
	assert.Contains(t, res.Warnings[0], bad)

	note := p.client.WaitNotification("window/showMessage", "could not be restored")
	var msg struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(note.Params, &msg))
	assert.Equal(t, 2, msg.Type, "a warning")
	assert.Equal(t, res.Warnings[0], msg.Message)
	assert.Contains(t, p.stderr.String(), "could not be restored", "the log says so too")

	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "hello"}, &ans)
	assert.Equal(t, "Fresh start.", ans.Answer)
	assert.Equal(t, h.sessionsDir(), filepath.Dir(ans.SavedTo), "a new session, saved to a new file")
	data, err := os.ReadFile(bad)
	require.NoError(t, err)
	assert.Equal(t, broken, string(data), "the broken file is left alone")
}

func TestLogs(t *testing.T) {
	t.Run("stderr", func(t *testing.T) {
		h := newHome(t)
		p := startProc(t, h, procOptions{})
		p.initialize(nil)
		var info conversation.Info
		p.client.Result("session/new", nil, &info)
		p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "shop"}, nil)
		p.client.Send([]byte("Content-Length: 2\r\n\r\n[]")) // logged as malformed
		p.client.WaitNullError()
		p.closeStdin()
		require.Equal(t, 0, p.wait())
		bodies := p.assertOnlyFrames()
		assert.Len(t, bodies, 4, "initialize, session/new, session/setSource, the malformed message")
		assert.Contains(t, p.stderr.String(), "malformed message")
		assert.Contains(t, p.stderr.String(), "saved session")
	})
	t.Run("log file", func(t *testing.T) {
		h := newHome(t)
		logFile := filepath.Join(t.TempDir(), "aiq-rpc.log")
		p := startProc(t, h, procOptions{args: []string{"--log-file", logFile}})
		p.initialize(nil)
		var info conversation.Info
		p.client.Result("session/new", nil, &info)
		p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "shop"}, nil)
		p.client.Send([]byte("Content-Length: 2\r\n\r\n[]"))
		p.client.WaitNullError()
		p.closeStdin()
		require.Equal(t, 0, p.wait())
		p.assertOnlyFrames()
		assert.Empty(t, p.stderr.String(), "with --log-file, nothing on stderr")
		data, err := os.ReadFile(logFile)
		require.NoError(t, err)
		assert.Contains(t, string(data), "malformed message")
		assert.Contains(t, string(data), "saved session")
		assert.NotContains(t, string(data), testPassword)
	})
}

// TestEndOfInputDuringTurn ends the input while a turn waits on the model:
// the process waits for the turn, which is saved, and exits 0.
func TestEndOfInputDuringTurn(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "A slow answer.", Delay: 200 * time.Millisecond})
	h := newHome(t).withModel(t, srv.URL)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	p.client.Start("chat/turn", map[string]any{"query": "take your time"})
	p.closeStdin()
	assert.Equal(t, 0, p.wait())
	require.Len(t, srv.Requests(), 1, "the turn reached the model")
	files := h.sessionFiles(t)
	require.Len(t, files, 1, "the turn that was running is saved")
	s, _, err := conversation.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, 1, s.Turns())
	p.assertOnlyFrames()
}

// TestPipelined writes 300 messages in one go, a malformed one among every
// ten, without waiting for any answer: every request is answered once,
// every malformed message draws one error with id null, and stdout stays
// a clean sequence of frames.
func TestPipelined(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	var batch bytes.Buffer
	frame := func(body string) {
		fmt.Fprintf(&batch, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	var ids []string
	malformed := 0
	for i := range 300 {
		id := 1000 + i
		switch {
		case i%10 == 5:
			frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":`, id))
			malformed++
		case i%3 == 0:
			frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"chat/history","params":{"sessionId":%q}}`, id, info.SessionID))
			ids = append(ids, strconv.Itoa(id))
		case i%3 == 1:
			frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/list"}`, id))
			ids = append(ids, strconv.Itoa(id))
		default:
			frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sources/list"}`, id))
			ids = append(ids, strconv.Itoa(id))
		}
	}
	p.client.Send(batch.Bytes())
	for _, id := range ids {
		m := p.client.Wait(json.RawMessage(id))
		require.Nil(t, m.Error, "request %s: %s", id, m.Raw)
	}
	for range malformed {
		assert.Equal(t, -32700, errorCode(t, p.client.WaitNullError()))
	}
	p.closeStdin()
	require.Equal(t, 0, p.wait())
	bodies := p.assertOnlyFrames()
	assert.Len(t, bodies, 2+len(ids)+malformed, "one frame per answer, no more")
}

func TestSourceFlag(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{args: []string{"--source", "shop"}})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	assert.Equal(t, "shop", info.Source, "--source is the source of new sessions")
	assert.Equal(t, "postgresql", info.DatabaseType)

	// The client's own choice wins over the flag.
	p2 := startProc(t, h, procOptions{args: []string{"--source", "shop"}})
	p2.initialize(map[string]any{"options": map[string]any{"source": "local"}})
	p2.client.Result("session/new", nil, &info)
	assert.Equal(t, "local", info.Source)

	p3 := startProc(t, h, procOptions{args: []string{"--source", "nope"}})
	p3.initialize(nil)
	m := p3.client.Call("session/new", nil)
	assert.Equal(t, -32012, errorCode(t, m), "an unknown --source is refused when it is used")
	assert.Contains(t, m.Error.Message, `"nope"`)
}

func TestHistoryLimitFlag(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "one"}, llmtest.Step{Text: "two"}, llmtest.Step{Text: "three"})
	h := newHome(t).withModel(t, srv.URL)
	p := startProc(t, h, procOptions{args: []string{"--history-limit", "2"}})
	p.initialize(nil)
	var ans conversation.Answer
	for _, q := range []string{"first", "second", "third"} {
		p.client.Result("chat/turn", map[string]any{"query": q}, &ans)
	}
	var hist conversation.History
	p.client.Result("chat/history", map[string]any{"sessionId": ans.SessionID}, &hist)
	require.Len(t, hist.Turns, 4, "the last two turns")
	assert.Equal(t, "second", hist.Turns[0].Content)
	s, _, err := conversation.Load(ans.SavedTo)
	require.NoError(t, err)
	assert.Equal(t, 2, s.Turns(), "the file keeps two turns too")
}

// TestStdoutClosedSavesSessions closes the client's end of stdout, as an
// editor that goes away may, with a session not yet saved.
func TestStdoutClosedSavesSessions(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "local"}, nil)
	require.NoError(t, p.stdoutR.Close())
	p.client.Start("session/list", nil) // its answer cannot be written
	code := p.wait()
	assert.Equal(t, 1, code, "a broken output is a failure, not a crash: %v", p.waitErr)
	assert.Len(t, h.sessionFiles(t), 1, "the session with changes is saved")
}
