package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

func TestInitialize(t *testing.T) {
	f := newFixture(t)
	res := f.initialize()
	assert.EqualValues(t, 1, res.ProtocolVersion)
	require.NotNil(t, res.AgentInfo)
	assert.Equal(t, "aiq-rpc", res.AgentInfo.Name)
	assert.Equal(t, "AIQ", *res.AgentInfo.Title)
	assert.Equal(t, "test", res.AgentInfo.Version)
	assert.True(t, res.AgentCapabilities.LoadSession)
	assert.True(t, res.AgentCapabilities.PromptCapabilities.EmbeddedContext)
	assert.False(t, res.AgentCapabilities.PromptCapabilities.Image)
	assert.False(t, res.AgentCapabilities.PromptCapabilities.Audio)
	assert.Empty(t, res.AuthMethods)
}

// TestNewSession: the id is the session's file, which the CLI can load,
// the sources are offered as modes and as a config option, and the
// commands are announced once the client has the id.
func TestNewSession(t *testing.T) {
	f := newFixture(t)
	f.initialize()
	res, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.home.Dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "ignored", Command: "/bin/false", Args: []string{}, Env: []sdk.EnvVariable{}}}}})
	require.NoError(t, err)
	path := string(res.SessionId)
	assert.Equal(t, f.home.SessionsDir(), filepath.Dir(path))
	require.NoError(t, sessiontest.CheckCLILoadRules(readFile(t, path)))
	require.NotNil(t, res.Modes)
	assert.EqualValues(t, "db", res.Modes.CurrentModeId)
	var modes []string
	for _, m := range res.Modes.AvailableModes {
		modes = append(modes, string(m.Id))
	}
	assert.Equal(t, []string{"db", "other", "#none"}, modes)
	require.Len(t, res.ConfigOptions, 1)
	assert.EqualValues(t, "db", res.ConfigOptions[0].Select.CurrentValue)

	var names []string
	require.Eventually(t, func() bool {
		for _, u := range f.client.of(res.SessionId) {
			if u.AvailableCommandsUpdate != nil {
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					names = append(names, c.Name)
				}
				return true
			}
		}
		return false
	}, waitTimeout, time.Millisecond, "no available_commands_update")
	assert.Equal(t, []string{"history", "clear", "source", "save", "sql", "allowances"}, names)

	// An editor opens a session whenever its panel opens: one never used
	// leaves no file behind.
	require.NoError(t, f.stop())
	assert.NoFileExists(t, path)
}

// TestPrompt: a text block and an embedded resource go to the model as the
// question and a fenced block; the answer streams, and the statement shows
// as a tool call and its update with the rows.
func TestPrompt(t *testing.T) {
	f := newFixture(t,
		sqlCall("call_1", "SELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status"),
		llmtest.Step{Text: "Two are delivered, one pending, one shipped."},
	)
	id := f.newSession()
	res, err := f.prompt(id, sdk.TextBlock("what does this do?"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{
			Uri: "file:///work/orders.sql", Text: "SELECT status, count(*) FROM orders GROUP BY status;"}}),
		sdk.ResourceLinkBlock("schema.sql", "file:///work/schema.sql"))
	require.NoError(t, err)
	assert.Equal(t, sdk.StopReasonEndTurn, res.StopReason)

	reqs := f.model.Requests()
	require.Len(t, reqs, 2)
	user := reqs[0].Messages[len(reqs[0].Messages)-1]
	assert.Equal(t, "user", user.Role)
	assert.Contains(t, user.Content, "what does this do?")
	assert.Contains(t, user.Content, "```sql\nSELECT status, count(*) FROM orders GROUP BY status;\n```")
	assert.Contains(t, user.Content, "schema.sql, file:///work/schema.sql, which is not attached")

	updates := f.client.of(id)
	var call *sdk.SessionUpdateToolCall
	var done *sdk.SessionToolCallUpdate
	for _, u := range updates {
		if u.ToolCall != nil {
			call = u.ToolCall
		}
		if u.ToolCallUpdate != nil {
			done = u.ToolCallUpdate
		}
	}
	require.NotNil(t, call, "no tool_call")
	assert.EqualValues(t, "call_1", call.ToolCallId)
	assert.Equal(t, "SELECT from orders", call.Title)
	assert.Equal(t, "```sql\nSELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status\n```", toolText(call.Content), "the card shows the SQL while it runs")
	assert.Equal(t, sdk.ToolKindRead, call.Kind)
	assert.Equal(t, sdk.ToolCallStatusInProgress, call.Status)
	assert.JSONEq(t, `{"sql":"SELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status"}`, jsonOf(t, call.RawInput))
	require.NotNil(t, done, "no tool_call_update")
	assert.Equal(t, sdk.ToolCallStatusCompleted, *done.Status)
	assert.Equal(t, "```sql\nSELECT status, count(*) AS n\nFROM orders GROUP BY status ORDER BY status\n```\n\n"+
		"| status | n |\n| --- | --- |\n| delivered | 2 |\n| pending | 1 |\n| shipped | 1 |\n\n(3 rows)", toolText(done.Content))
	assert.Equal(t, "Two are delivered, one pending, one shipped.", text(updates))

	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Len(t, h.Turns, 2, "the turn was not kept")
	data := readFile(t, string(id))
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	assert.Contains(t, string(data), "Two are delivered", "the turn was not autosaved to the session's file")
}

// TestWrites: a write runs only after an explicit allow; a reject, a
// cancelled request and "reject always" leave the table as it was, and the
// model is told.
func TestWrites(t *testing.T) {
	insert := func(id int) string { return "INSERT INTO orders VALUES (" + strconv.Itoa(id) + ", 'new')" }
	f := newFixture(t,
		sqlCall("call_r", insert(100)), llmtest.Step{Text: "Not inserted."},
		sqlCall("call_a", insert(101)), llmtest.Step{Text: "Inserted."},
		sqlCall("call_c", insert(102)), llmtest.Step{Text: "Not inserted."},
		sqlCall("call_ra", insert(103)), llmtest.Step{Text: "Not inserted."},
		sqlCall("call_ra2", insert(104)), llmtest.Step{Text: "Not inserted."},
	)
	id := f.newSession()
	before := f.countOrders()

	f.client.choose("reject_once")
	f.say(id, "add order 100")
	assert.Equal(t, before, f.countOrders(), "a rejected write ran")
	asked := f.client.permissions()
	require.Len(t, asked, 1)
	assert.EqualValues(t, "call_r", asked[0].ToolCall.ToolCallId)
	assert.Equal(t, sdk.ToolKindEdit, *asked[0].ToolCall.Kind)
	var kinds []sdk.PermissionOptionKind
	for _, o := range asked[0].Options {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []sdk.PermissionOptionKind{"reject_once", "allow_once", "allow_always", "reject_always"}, kinds)
	assert.Contains(t, f.lastToolMessage(1), "declined", "the model was not told")
	updates := f.client.take()
	assert.Equal(t, sdk.ToolKindEdit, toolCall(updates, "call_r").Kind)
	assert.Equal(t, sdk.ToolCallStatusFailed, *toolUpdate(updates, "call_r").Status)

	f.client.choose("allow_once")
	f.say(id, "add order 101")
	assert.Equal(t, before+1, f.countOrders(), "an allowed write did not run")
	assert.Equal(t, sdk.ToolCallStatusCompleted, *toolUpdate(f.client.take(), "call_a").Status)

	f.client.mu.Lock()
	f.client.permit = nil // the request is cancelled
	f.client.mu.Unlock()
	f.say(id, "add order 102")
	assert.Equal(t, before+1, f.countOrders(), "a write ran after a cancelled permission request")

	f.client.choose("reject_always")
	f.say(id, "add order 103")
	f.say(id, "add order 104")
	assert.Equal(t, before+1, f.countOrders())
	assert.Len(t, f.client.permissions(), 4, "reject always asked again")
	assert.Contains(t, f.lastToolMessage(9), "the user declined this statement")
	// The card says the user declined, not that no one could confirm it.
	var last string
	for _, u := range f.client.of(id) {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil {
			last = toolText(u.ToolCallUpdate.Content)
		}
	}
	assert.Contains(t, last, "You declined this statement")
	assert.NotContains(t, last, "could not be confirmed here")
}

// lastToolMessage is the last tool message of the model's request i.
func (f *fixture) lastToolMessage(i int) string {
	reqs := f.model.Requests()
	require.Greater(f.t, len(reqs), i)
	msgs := reqs[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == "tool" {
			return msgs[j].Content
		}
	}
	f.t.Fatalf("request %d has no tool message", i)
	return ""
}

func toolCall(updates []sdk.SessionUpdate, id string) *sdk.SessionUpdateToolCall {
	for _, u := range updates {
		if u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id {
			return u.ToolCall
		}
	}
	return &sdk.SessionUpdateToolCall{}
}

func toolUpdate(updates []sdk.SessionUpdate, id string) *sdk.SessionToolCallUpdate {
	for _, u := range updates {
		if u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil {
			return u.ToolCallUpdate
		}
	}
	return &sdk.SessionToolCallUpdate{Status: new(sdk.ToolCallStatus)}
}

// TestCancel: session/cancel during a held model answer ends the prompt
// with "cancelled" and leaves the conversation as it was.
func TestCancel(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "First answer."}, llmtest.Step{Text: "never", Hold: true}, llmtest.Step{Text: "After."})
	id := f.newSession()
	f.say(id, "first question")
	before := readFile(t, string(id))

	result := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := f.prompt(id, sdk.TextBlock("a question the model holds"))
		assert.NoError(t, err)
		result <- res
	}()
	require.Eventually(t, func() bool { return len(f.model.Requests()) == 2 }, waitTimeout, time.Millisecond,
		"the model never got the held question")
	start := time.Now()
	require.NoError(t, f.conn.Cancel(f.ctx(), sdk.CancelNotification{SessionId: id}))
	select {
	case res := <-result:
		assert.Equal(t, sdk.StopReasonCancelled, res.StopReason)
		t.Logf("the prompt answered %v after session/cancel", time.Since(start))
	case <-time.After(waitTimeout):
		t.Fatal("the prompt did not end after session/cancel")
	}
	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Len(t, h.Turns, 2, "the cancelled turn was kept")
	assert.Equal(t, before, readFile(t, string(id)), "the session file changed")
	f.say(id, "next question")
}

// TestCommands runs the slash commands.
func TestCommands(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "An answer."})
	id := f.newSession()
	f.say(id, "a question")
	f.client.take()

	f.say(id, "/history")
	got := text(f.client.take())
	assert.Contains(t, got, "**You** · ")
	assert.Contains(t, got, "a question")
	assert.Contains(t, got, "**aiq** · ")
	assert.Contains(t, got, "An answer.")

	f.say(id, "/clear") // the permission request is cancelled: kept
	assert.Contains(t, text(f.client.take()), "kept")
	f.client.choose("keep")
	f.say(id, "/clear")
	assert.Contains(t, text(f.client.take()), "kept")
	h, err := f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Len(t, h.Turns, 2)
	f.client.choose("clear")
	f.say(id, "/clear")
	updates := f.client.take()
	assert.Contains(t, text(updates), "cleared and saved to "+string(id))
	assert.Equal(t, sdk.ToolKindDelete, toolCall(updates, "clear_3").Kind)
	assert.Equal(t, sdk.ToolCallStatusCompleted, *toolUpdate(updates, "clear_3").Status)
	h, err = f.ws.History(f.ctx(), "s1", false)
	require.NoError(t, err)
	assert.Empty(t, h.Turns)
	assert.NotContains(t, string(readFile(t, string(id))), "a question", "the cleared file still holds the turn")

	f.say(id, "/source")
	got = text(f.client.take())
	assert.Contains(t, got, "- `db`: sqlite (this session's)")
	assert.Contains(t, got, "- `other`: postgresql")
	assert.Contains(t, got, "/source NAME")
	f.say(id, "/source other")
	updates = f.client.take()
	assert.Contains(t, text(updates), "The data source is now other (postgresql).")
	var mode sdk.SessionModeId
	for _, u := range updates {
		if u.CurrentModeUpdate != nil {
			mode = u.CurrentModeUpdate.CurrentModeId
		}
	}
	assert.EqualValues(t, "other", mode)
	_, err = f.prompt(id, sdk.TextBlock("/source nowhere"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `there is no source \"nowhere\"`)

	path := filepath.Join(t.TempDir(), "kept.json")
	f.say(id, "/save "+path)
	assert.Contains(t, text(f.client.take()), "Saved to "+path+". Run 'aiq -s "+path+"' to continue.")
	require.NoError(t, sessiontest.CheckCLILoadRules(readFile(t, path)))
}

// TestLoad: every session file the AIQ CLI wrote loads, and its history
// is replayed before the answer: each question, each answer, each stored
// tool call as a finished one.
func TestLoad(t *testing.T) {
	for name, data := range sessiontest.CLIFiles() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.initialize()
			path := filepath.Join(t.TempDir(), name)
			require.NoError(t, os.WriteFile(path, data, 0o600))
			_, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(path), Cwd: "/", McpServers: []sdk.McpServer{}})
			require.NoError(t, err)
			s, _, err := conversation.Load(path)
			require.NoError(t, err)
			want := conversation.Transcript(s.History)
			updates := f.client.of(sdk.SessionId(path))
			var users, calls int
			for _, u := range updates {
				if u.UserMessageChunk != nil {
					users++
				}
				if u.ToolCall != nil {
					calls++
					assert.Contains(t, []sdk.ToolCallStatus{"completed", "failed"}, u.ToolCall.Status)
					assert.NotEmpty(t, toolText(u.ToolCall.Content), "a replayed call shows no result")
				}
			}
			var wantUsers, wantCalls int
			for _, turn := range want {
				if turn.User != "" {
					wantUsers++
				}
				for _, step := range turn.Steps {
					if step.Call != nil {
						wantCalls++
					}
				}
			}
			assert.Equal(t, wantUsers, users)
			assert.Equal(t, wantCalls, calls)
			assert.Positive(t, users, "nothing was replayed")
			assert.Equal(t, data, readFile(t, path), "loading wrote the file")
		})
	}
}

func TestLoadReplaysToolCalls(t *testing.T) {
	f := newFixture(t, sqlCall("call_1", "SELECT count(*) AS n FROM orders"), llmtest.Step{Text: "Four."})
	id := f.newSession()
	f.say(id, "how many orders?")
	require.NoError(t, f.stop())

	g := newFixture(t)
	g.initialize()
	_, err := g.conn.LoadSession(g.ctx(), sdk.LoadSessionRequest{SessionId: id, Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	updates := g.client.of(id)
	var kinds []string
	for _, u := range updates {
		switch {
		case u.UserMessageChunk != nil:
			kinds = append(kinds, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			kinds = append(kinds, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			kinds = append(kinds, "tool: "+u.ToolCall.Title+" "+string(u.ToolCall.Status)+" "+toolText(u.ToolCall.Content))
		case u.AvailableCommandsUpdate != nil:
			kinds = append(kinds, "commands")
		}
	}
	assert.Equal(t, []string{
		"user: how many orders?",
		"tool: SELECT from orders completed ```sql\nSELECT count(*) AS n FROM orders\n```\n\n| n |\n| --- |\n| 4 |\n\n(1 row)",
		"agent: Four.",
		"commands",
	}, kinds)
}

func TestLoadInvalid(t *testing.T) {
	f := newFixture(t)
	f.initialize()
	path := filepath.Join(t.TempDir(), "broken.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"metadata": [}`), 0o600))
	_, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(path), Cwd: "/", McpServers: []sdk.McpServer{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Equal(t, `{"metadata": [}`, string(readFile(t, path)), "the broken file was written")
	_, err = f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: "missing.json", Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.json")
	assert.Empty(t, f.client.take(), "a failed load replayed something")
}

// TestSourceGone: a session whose source is no longer configured loads;
// its first prompt answers with the sources and how to pick one.
func TestSourceGone(t *testing.T) {
	f := newFixture(t, llmtest.Step{Text: "Answered."})
	f.initialize()
	path := filepath.Join(t.TempDir(), "gone.json")
	require.NoError(t, os.WriteFile(path, sessiontest.CLIFiles()["cli-db-mode.session.json"], 0o600))
	_, err := f.conn.LoadSession(f.ctx(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(path), Cwd: "/", McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	f.client.take()
	res, err := f.prompt(sdk.SessionId(path), sdk.TextBlock("how many orders?"))
	require.NoError(t, err)
	assert.Equal(t, sdk.StopReasonEndTurn, res.StopReason)
	got := text(f.client.take())
	assert.Contains(t, got, `The data source "local-mysql" of this session is not configured any more.`)
	assert.Contains(t, got, "- `db`: sqlite")
	assert.Contains(t, got, "Pick one with `/source NAME`.")
	assert.NotContains(t, got, "session/setSource", "the answer names the other protocol's method")
	f.say(sdk.SessionId(path), "/source db")
	f.say(sdk.SessionId(path), "how many orders?")
	assert.Contains(t, text(f.client.take()), "Answered.")
}

func jsonOf(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// TestPermissionKeepsTitle: the permission request for a write carries its
// card's title, so a client that shows the request on the card does not
// see the title change while the user decides, nor after.
func TestPermissionKeepsTitle(t *testing.T) {
	sql := "-- add the late order\nINSERT INTO orders VALUES (200, 'new')"
	f := newFixture(t, sqlCall("call_t", sql), llmtest.Step{Text: "Not inserted."})
	id := f.newSession()
	f.client.choose("reject_once")
	f.say(id, "add order 200")
	asked := f.client.permissions()
	require.Len(t, asked, 1)
	updates := f.client.take()
	card := toolCall(updates, "call_t")
	require.NotNil(t, card, "no tool_call")
	assert.Equal(t, "INSERT into orders", card.Title)
	require.NotNil(t, asked[0].ToolCall.Title, "the permission request has no title")
	assert.Equal(t, card.Title, *asked[0].ToolCall.Title, "the permission request renames the card")
	for _, u := range updates {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_t" && u.ToolCallUpdate.Title != nil {
			assert.Equal(t, card.Title, *u.ToolCallUpdate.Title, "an update renames the card")
		}
	}
}
