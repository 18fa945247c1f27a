package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestBadInput: each bad call gets an answer that says what is wrong, runs
// nothing, and the server goes on serving.
func TestBadInput(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	e := &elicitor{answer: answer("accept", "allow_once")}
	cs := f.connect(e.options())
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()

	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "drop_everything", Arguments: map[string]any{}})
	require.Error(t, err, "an unknown tool is a JSON-RPC error")
	assert.Contains(t, err.Error(), "drop_everything")

	for _, c := range []struct {
		name string
		tool string
		args any
		want string
	}{
		{"missing sql", "execute_sql", map[string]any{}, "execute_sql needs the argument sql"},
		{"sql not a string", "execute_sql", map[string]any{"sql": 42}, "the argument sql must be a string"},
		{"source not a string", "list_tables", map[string]any{"source": []int{1}}, "the argument source must be a string"},
		{"unknown argument", "execute_sql", map[string]any{"sql": "SELECT 1", "query": "x"}, `takes no argument "query"`},
		{"not an object", "list_tables", []int{1, 2}, "must be a JSON object, not an array"},
		{"a string for arguments", "query", "SELECT 1", "must be a JSON object, not a string"},
		{"unknown source", "list_tables", map[string]any{"source": "nope"}, `there is no source "nope"`},
		{"several statements", "execute_sql", map[string]any{"sql": "SELECT 1; DELETE FROM orders"}, "more than one statement"},
		{"several statements hidden", "execute_sql", map[string]any{"sql": "DELETE FROM orders; SELECT 1"}, "more than one statement"},
		{"9 MiB", "execute_sql", map[string]any{"sql": "SELECT '" + strings.Repeat("x", 9<<20) + "'"}, "9.0 MiB, more than the 1.0 MiB limit"},
		{"no table", "describe_table", map[string]any{}, "describe_table needs the table argument"},
		{"unknown table", "describe_table", map[string]any{"table": "nope"}, "No table `nope`; call search_schema"},
		{"too many tables", "describe_table", map[string]any{"tables": strings.Split(strings.Repeat("orders,", 20)+"orders", ",")}, "takes up to 20 tables"},
		{"tables not strings", "describe_table", map[string]any{"tables": []int{1}}, "the argument tables must be an array of strings"},
		{"missing query", "search_schema", map[string]any{}, "search_schema needs the argument query"},
		{"missing column", "profile_column", map[string]any{"table": "orders"}, "profile_column needs the argument column"},
		{"unknown column", "profile_column", map[string]any{"table": "orders", "column": "state"}, "No column `state` in orders; did you mean `status`?"},
		{"explain several statements", "explain_sql", map[string]any{"sql": "SELECT 1; DELETE FROM orders"}, "more than one statement"},
		{"explain of EXPLAIN", "explain_sql", map[string]any{"sql": "EXPLAIN ANALYZE DELETE FROM orders"}, "without EXPLAIN"},
		{"unreachable source", "list_tables", map[string]any{"source": "other"}, "other"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			require.NoError(t, err)
			assert.True(t, res.IsError)
			assert.Contains(t, text(res), c.want)
			assert.NotContains(t, text(res), testPassword)
			assert.NotRegexp(t, `Go value|Go struct|json: |map\[|\*mcp\.`, text(res), "words, not Go's internals")
		})
	}
	assert.Empty(t, e.requests(), "nothing was worth asking about")
	assert.Equal(t, int64(4), f.count())
	res := call(t, cs, "list_tables", nil)
	assert.False(t, res.IsError, text(res))
}

// panicBox is a toolbox whose tools panic.
type panicBox struct{}

func (panicBox) Specs() []conversation.ToolSpec {
	return []conversation.ToolSpec{{Name: "list_tables", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (panicBox) Run(context.Context, string, json.RawMessage) (any, error) { panic("boom in a tool") }
func (panicBox) Describe(context.Context) string                           { panic("boom in a schema") }

// TestPanicAnswered: a panic in a tool call is answered as a tool error,
// one in a resource read as an error, each logged with its stack, and the
// server goes on serving.
func TestPanicAnswered(t *testing.T) {
	f := newFixture(t, fixtureOptions{toolbox: func(context.Context, sessionio.Source, conversation.Confirmer) (conversation.Toolbox, error) {
		return panicBox{}, nil
	}})
	cs := f.connect(nil)
	for range 2 {
		res := call(t, cs, "list_tables", nil)
		assert.True(t, res.IsError)
		assert.Contains(t, text(res), "failed inside list_tables")
	}
	assert.Contains(t, f.log.String(), "boom in a tool")
	assert.Contains(t, f.log.String(), "goroutine")
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "aiq://sources/" + f.src.Name + "/schema"})
	require.Error(t, err, "a panic in a resource read")
	assert.Contains(t, err.Error(), "failed inside the read")
	assert.Contains(t, f.log.String(), "boom in a schema")
	res := call(t, cs, "list_sources", nil)
	assert.False(t, res.IsError, text(res))
}

// TestConcurrentCalls: twenty calls at once, reads and declined writes,
// each get their own answer (run with -race).
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	e := &elicitor{answer: answer("decline", "")}
	cs := f.connect(e.options())
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			sql := fmt.Sprintf("SELECT %d AS n, count(*) AS c FROM orders", i)
			if i%5 == 0 {
				sql = fmt.Sprintf("DELETE FROM orders WHERE id = %d", i%4+1)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": sql}})
			switch {
			case err != nil:
				errs <- err
			case i%5 == 0 && !res.IsError:
				errs <- fmt.Errorf("call %d: a declined DELETE ran: %s", i, text(res))
			case i%5 != 0 && !strings.Contains(text(res), fmt.Sprintf("| %d | 4 |", i)):
				errs <- fmt.Errorf("call %d: got %s", i, text(res))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Len(t, e.requests(), 4)
	assert.Equal(t, int64(4), f.count())
}

// TestCancelStopsStatement: notifications/cancelled of a long statement
// stops it on the database server, as $/cancelRequest does.
func TestCancelStopsStatement(t *testing.T) {
	for _, c := range []struct {
		name    string
		source  func(testing.TB) sessionio.Source
		slow    string
		running string
	}{
		{"sqlite", dbtest.SQLite, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c", ""},
		{"postgres", dbtest.Postgres, "SELECT pg_sleep(600)",
			"SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)' AND pid <> pg_backend_pid()"},
		{"mariadb", dbtest.MariaDB, "SELECT SLEEP(600)",
			"SELECT count(*) FROM information_schema.processlist WHERE info = 'SELECT SLEEP(600)' AND id <> CONNECTION_ID()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{source: c.source})
			cs := f.connect(nil)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": c.slow}})
				done <- err
			}()
			if c.running != "" {
				waitFor(t, func() bool { return dbtest.QueryInt(t, f.src, c.running) == 1 })
			} else {
				time.Sleep(200 * time.Millisecond)
			}
			cancel() // the SDK's client sends notifications/cancelled
			select {
			case err := <-done:
				require.Error(t, err)
			case <-time.After(waitTimeout):
				t.Fatal("the cancelled call did not end")
			}
			if c.running != "" {
				waitFor(t, func() bool { return dbtest.QueryInt(t, f.src, c.running) == 0 })
			}
			res := call(t, cs, "list_tables", nil)
			assert.False(t, res.IsError, text(res))
		})
	}
}

// waitFor polls cond until it holds, failing after waitTimeout.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
