package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestMaskAddedDuringSession: a mask added to sources.yaml while a session
// is open applies from its next turn: the model's requests of that turn
// hold tokens, never the values, and a token of that turn finds its row.
func TestMaskAddedDuringSession(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text, city text)",
		"INSERT INTO customers VALUES (1, 'ann@example.com', 'Oslo'), (2, 'bob@example.com', 'Rome')",
	)
	yaml := fmt.Sprintf("- name: db\n  type: sqlite\n  database: %q\n", src.Database)
	home, path := sourcesHome(t, yaml)
	sql := func(id, q string) modeltest.Step { return sqlCall(t, id, q) }
	tokenRe := regexp.MustCompile(`<masked:email:[0-9a-f]{12,}>`)
	var token string
	model := &modeltest.Model{}
	model.Steps = []modeltest.Step{
		sql("c1", "SELECT id, city FROM customers ORDER BY id"),
		modeltest.Answer("Two customers."),
	}
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          home,
		Model:         func() (conversation.Model, error) { return model, nil },
		DefaultSource: "db",
	})
	t.Cleanup(func() { ws.Close() })
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "the cities"}, nil, nil)
	require.NoError(t, err)
	first := len(model.Requests())

	require.NoError(t, os.WriteFile(path, []byte(yaml+"  mask: [customers.email]\n"), 0o600))
	model.Respond = func(req conversation.Request) modeltest.Step {
		last := req.Messages[len(req.Messages)-1].Content
		if last == "the emails" {
			return sql("c2", "SELECT id, email FROM customers ORDER BY id")
		}
		if token == "" {
			if token = tokenRe.FindString(last); token == "" {
				return modeltest.Answer("no token in " + last)
			}
			return sql("c3", "SELECT id FROM customers WHERE email = '"+token+"'")
		}
		return modeltest.Answer("Done.")
	}
	ans, err := ws.Ask(ctx, id, conversation.Question{Query: "the emails"}, nil, nil)
	require.NoError(t, err)
	require.NotEmpty(t, token, "the second turn's model never got a token: %s", ans.Answer)
	require.Len(t, ans.Statements, 2, "the second turn's statements")
	assert.Equal(t, "bob@example.com", ans.Statements[0].Rows[1][1], "the editor's rows keep the real values")
	assert.Equal(t, [][]any{{int64(1)}}, ans.Statements[1].Rows, "the token finds its row")

	reqs := model.Requests()[first:]
	require.NotEmpty(t, reqs)
	for i, r := range reqs {
		body, err := json.Marshal(r.Messages)
		require.NoError(t, err)
		for _, v := range []string{"ann@example.com", "bob@example.com"} {
			assert.NotContains(t, string(body), v, "request %d of the second turn holds a masked value", i+1)
		}
	}
}

// TestSourceChangeReachesOpenSession: access: read_only added to
// sources.yaml while a session is open applies from its next statement
// (the write is refused without asking, and changes nothing), while the
// tokens the model got before still find their rows.
func TestSourceChangeReachesOpenSession(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text)",
		"INSERT INTO customers VALUES (1, 'ann@example.com'), (2, 'bob@example.com')",
	)
	yaml := fmt.Sprintf("- name: db\n  type: sqlite\n  database: %q\n  mask: [customers.email]\n", src.Database)
	home, path := sourcesHome(t, yaml)
	sql := func(id, q string) modeltest.Step { return sqlCall(t, id, q) }
	var token string
	model := &modeltest.Model{Respond: func(req conversation.Request) modeltest.Step {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Content == "the emails":
			return sql("c1", "SELECT id, email FROM customers WHERE id = 1")
		case last.Content == "remove ann":
			return sql("c2", "DELETE FROM customers WHERE email = '"+token+"'")
		case last.ToolCallID == "c1":
			token = regexp.MustCompile(`<masked:email:[0-9a-f]{12,}>`).FindString(last.Content)
		case last.ToolCallID == "c2":
			return sql("c3", "SELECT id FROM customers WHERE email = '"+token+"'")
		}
		return modeltest.Answer("Done.")
	}}
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          home,
		Model:         func() (conversation.Model, error) { return model, nil },
		DefaultSource: "db",
	})
	t.Cleanup(func() { ws.Close() })
	var asked []conversation.ConfirmRequest
	confirm := func(_ context.Context, req conversation.ConfirmRequest) (conversation.Decision, error) {
		asked = append(asked, req)
		return conversation.AllowOnce, nil
	}
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "the emails"}, confirm, nil)
	require.NoError(t, err)
	require.NotEmpty(t, token, "the model got no token")

	require.NoError(t, os.WriteFile(path, []byte(yaml+"  access: read_only\n"), 0o600))
	ans, err := ws.Ask(ctx, id, conversation.Question{Query: "remove ann"}, confirm, nil)
	require.NoError(t, err)
	require.Len(t, ans.Statements, 2)
	assert.Equal(t, "rejected", ans.Statements[0].Status, "a write on a source now read_only")
	assert.Empty(t, asked, "refused without asking")
	assert.EqualValues(t, 2, dbtest.QueryInt(t, src, "SELECT count(*) FROM customers"))
	assert.Equal(t, [][]any{{int64(1)}}, ans.Statements[1].Rows, "the token of the first turn still finds its row")
}

// sourcesHome is a new AIQ home whose sources.yaml, at path, is yaml.
func sourcesHome(t *testing.T, yaml string) (home sessionio.Home, path string) {
	t.Helper()
	home = sessionio.Home{Dir: t.TempDir()}
	path = home.SourcesPath()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	return home, path
}

// sqlCall is the model's call of execute_sql with q.
func sqlCall(t *testing.T, id, q string) modeltest.Step {
	args, err := json.Marshal(map[string]string{"sql": q})
	require.NoError(t, err)
	return modeltest.Call(id, "execute_sql", string(args))
}
