package editor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

var maskedSecrets = []string{"ann@example.com", "bob@example.com", "555-0101", "555-0102"}

var bobToken = regexp.MustCompile(`\[2,"(<masked:email:[0-9a-f]{12,}>)"`)

// TestMaskedColumnsEndToEnd: a scripted model behind the real OpenAI
// client reads the rows of masked columns, filters by a token and
// profiles the column, on SQLite. No masked value reaches any request
// body the model got, nor the session file's tool messages; the editor's
// rows, the turn's response and an export carry the real values; the
// token in a WHERE finds the row; another session gets other tokens.
func TestMaskedColumnsEndToEnd(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text, phone text, city text)",
		"INSERT INTO customers VALUES (1, 'ann@example.com', '555-0101', 'Oslo'), (2, 'bob@example.com', '555-0102', 'Oslo'), (3, 'ann@example.com', NULL, 'Rome')",
	)
	src.Mask = []string{"customers.email", "customers.phone"}
	srv := llmtest.NewServer(t)
	model, err := llm.New(llm.Config{URL: srv.URL, Model: "test"})
	require.NoError(t, err)
	c := startReal(t, src, model, map[string]bool{"confirm": true})

	call := func(id, name string, args any) llmtest.Step {
		return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: name, Arguments: mustJSON(t, args)}}}
	}
	var token string
	srv.Add(
		call("c1", "execute_sql", map[string]string{"sql": "SELECT id, email, phone, city FROM customers ORDER BY id"}),
		llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
			m := bobToken.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
			if m == nil {
				return llmtest.Step{Text: "no token found in " + req.Messages[len(req.Messages)-1].Content}
			}
			token = m[1]
			return call("c2", "execute_sql", map[string]string{"sql": "SELECT id, city FROM customers WHERE email = '" + token + "'"})
		}},
		call("c3", "profile_column", map[string]string{"table": "customers", "column": "email"}),
		llmtest.Step{Text: "Done."},
	)
	var info conversation.Info
	c.Result("session/new", nil, &info)
	before := len(c.Messages())
	resp := c.Call("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "who are the customers?"})
	require.Nil(t, resp.Error)
	require.NotEmpty(t, token, "the model never got a token: %s", resp.Result)

	var editorText strings.Builder
	for _, m := range c.Messages()[before:] {
		editorText.Write(m.Raw)
	}
	assert.Contains(t, editorText.String(), "bob@example.com", "the editor's rows carry the real values")
	assert.Contains(t, editorText.String(), "555-0102")
	var turn struct {
		Statements []struct {
			SQL  string  `json:"sql"`
			Rows [][]any `json:"rows"`
		} `json:"statements"`
	}
	require.NoError(t, json.Unmarshal(resp.Result, &turn))
	require.Len(t, turn.Statements, 2, "the turn's statements: %s", resp.Result)
	assert.Equal(t, "bob@example.com", turn.Statements[0].Rows[1][1], "the response's rows carry the real values")
	assert.Equal(t, [][]any{{float64(2), "Oslo"}}, turn.Statements[1].Rows, "the token in the WHERE finds the row")

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	noSecrets(t, reqs)
	assert.Contains(t, reqs[3].Messages[len(reqs[3].Messages)-1].Content, token, "the profile's most common values are tokens")

	var saved struct{ Path string }
	c.Result("session/save", map[string]any{"sessionId": info.SessionID}, &saved)
	data, err := os.ReadFile(saved.Path)
	require.NoError(t, err)
	var file struct {
		RawMessages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"raw_messages"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	tools := 0
	for _, m := range file.RawMessages {
		if m.Role != "tool" {
			continue
		}
		tools++
		for _, v := range maskedSecrets {
			assert.NotContains(t, string(m.Content), v, "a tool message of the session file holds a masked value")
		}
	}
	assert.Equal(t, 3, tools, "the session file's tool messages")

	out := filepath.Join(t.TempDir(), "c.csv")
	c.Result("result/export", map[string]any{"sessionId": info.SessionID, "sql": "SELECT email FROM customers ORDER BY id", "format": "csv", "path": out}, nil)
	csv, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(csv), "bob@example.com", "the export holds the real values")

	// Another session: another token for the same value, and the first
	// session's token finds nothing.
	srv.Add(call("d1", "execute_sql", map[string]string{"sql": "SELECT id, email FROM customers WHERE id = 2"}),
		call("d2", "execute_sql", map[string]string{"sql": "SELECT id FROM customers WHERE email = '" + token + "'"}),
		llmtest.Step{Text: "Done."})
	var other conversation.Info
	c.Result("session/new", nil, &other)
	resp = c.Call("chat/turn", map[string]any{"sessionId": other.SessionID, "query": "customer 2"})
	require.Nil(t, resp.Error)
	reqs = srv.Requests()
	require.Len(t, reqs, 7)
	second := reqs[5].Messages[len(reqs[5].Messages)-1].Content
	m := regexp.MustCompile(`<masked:email:[0-9a-f]{12,}>`).FindString(second)
	require.NotEmpty(t, m, "the second session's rows: %s", second)
	assert.NotEqual(t, token, m, "two sessions gave the same token")
	assert.Contains(t, reqs[6].Messages[len(reqs[6].Messages)-1].Content, "not issued in this conversation")
	noSecrets(t, reqs)
}

// noSecrets fails the test when a request body to the model, or one of
// its messages as decoded, holds a masked value.
func noSecrets(t *testing.T, reqs []llmtest.Request) {
	t.Helper()
	for _, r := range reqs {
		text := string(r.Body)
		for _, m := range r.Messages {
			text += m.Content
		}
		for _, v := range maskedSecrets {
			assert.NotContains(t, text, v, "request %d to the model holds a masked value", r.N)
		}
	}
}

// TestMaskedConfirm: chat/confirm of a write that names its rows by a
// token carries, in masked, the value the token stands for, for the user;
// the model's requests, its view of the write included, still hold none.
func TestMaskedConfirm(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text)",
		"INSERT INTO customers VALUES (1, 'ann@example.com'), (2, 'bob@example.com')",
	)
	src.Mask = []string{"customers.email"}
	srv := llmtest.NewServer(t)
	model, err := llm.New(llm.Config{URL: srv.URL, Model: "test"})
	require.NoError(t, err)
	c := startReal(t, src, model, map[string]bool{"confirm": true})
	var (
		mu    sync.Mutex
		asked []json.RawMessage
	)
	c.Handle("chat/confirm", func(params json.RawMessage) (any, *editortest.Error) {
		mu.Lock()
		asked = append(asked, params)
		mu.Unlock()
		return map[string]string{"decision": "allow_once"}, nil
	})

	call := func(id, name string, args any) llmtest.Step {
		return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: name, Arguments: mustJSON(t, args)}}}
	}
	var token string
	srv.Add(
		call("c1", "execute_sql", map[string]string{"sql": "SELECT id, email FROM customers ORDER BY id"}),
		llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
			m := bobToken.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
			if m == nil {
				return llmtest.Step{Text: "no token found"}
			}
			token = m[1]
			return call("c2", "execute_sql", map[string]string{"sql": "DELETE FROM customers WHERE email = '" + token + "'"})
		}},
		llmtest.Step{Text: "Done."},
	)
	var info conversation.Info
	c.Result("session/new", nil, &info)
	resp := c.Call("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "delete bob"})
	require.Nil(t, resp.Error)
	require.NotEmpty(t, token, "the model never got a token: %s", resp.Result)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, asked, 1)
	var p struct {
		SQL    string `json:"sql"`
		Masked []struct {
			Token string `json:"token"`
			Value string `json:"value"`
		} `json:"masked"`
	}
	require.NoError(t, json.Unmarshal(asked[0], &p))
	assert.Contains(t, p.SQL, token, "the dialog shows the statement as written")
	require.Len(t, p.Masked, 1, "chat/confirm: %s", asked[0])
	assert.Equal(t, token, p.Masked[0].Token)
	assert.Equal(t, "bob@example.com", p.Masked[0].Value)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[2].Messages[len(reqs[2].Messages)-1].Content, `"row_count":1`, "the delete ran with the value bound")
	noSecrets(t, reqs)
}
