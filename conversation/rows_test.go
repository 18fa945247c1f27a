package conversation_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// rowsEngine is a real database with a statement of many rows (20,000:
// enough for 40 pages, few enough for the race detector), and a slow one
// that streams rows until it is cancelled (or for 1,000 s, longer than the
// test waits for it to go).
type rowsEngine struct {
	name   string
	source func(testing.TB) sessionio.Source
	many   string
	slow   string
	// running counts the slow statements on the server; "" for SQLite,
	// which runs in this process.
	running string
}

var rowsEngines = []rowsEngine{
	{
		name:   "sqlite",
		source: dbtest.SQLite,
		many: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 20000) " +
			"SELECT n, 'row ' || n AS s FROM c",
		slow: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n, hex(randomblob(64)) AS s FROM c",
	},
	{
		name:   "postgres",
		source: dbtest.Postgres,
		many:   "SELECT g AS n, 'row ' || g AS s FROM generate_series(1, 20000) AS g",
		slow:   "SELECT g AS n, pg_sleep(0.0005)::text AS s FROM generate_series(1, 2000000) AS g",
		running: "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' " +
			"AND query LIKE '%pg_sleep(0.0005)%' AND pid <> pg_backend_pid()",
	},
	{
		name:   "mariadb",
		source: dbtest.MariaDB,
		many:   "SELECT seq AS n, CONCAT('row ', seq) AS s FROM seq_1_to_20000",
		slow:   "SELECT seq AS n, SLEEP(0.0005) AS s FROM seq_1_to_2000000",
		running: "SELECT count(*) FROM information_schema.processlist " +
			"WHERE info LIKE '%SLEEP(0.0005)%' AND id <> CONNECTION_ID()",
	},
}

// sqlWorkspace is a workspace on the real database src, whose model runs
// sql once and then answers.
func sqlWorkspace(t *testing.T, src sessionio.Source, sql string) (*conversation.Workspace, string) {
	args, err := json.Marshal(map[string]string{"sql": sql})
	require.NoError(t, err)
	model := &modeltest.Model{Steps: []modeltest.Step{
		modeltest.Call("c1", "execute_sql", string(args)),
		modeltest.Answer("Done."),
	}}
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          sessionio.Home{Dir: t.TempDir()},
		Model:         func() (conversation.Model, error) { return model, nil },
		Sources:       func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
		DefaultSource: src.Name,
		// Longer than any slow statement: only a cancel stops one.
		SQL: engine.Options{StatementTimeout: time.Hour},
	})
	t.Cleanup(func() { ws.Close() })
	id, err := ws.Default(context.Background())
	require.NoError(t, err)
	return ws, id
}

// events keeps a turn's events; the listener may run on any goroutine.
type events struct {
	mu   sync.Mutex
	list []conversation.Event
}

func (e *events) add(ev conversation.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

func (e *events) kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var kinds []string
	for _, ev := range e.list {
		kinds = append(kinds, ev.Kind)
	}
	return kinds
}

func (e *events) of(kind string) conversation.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.list {
		if ev.Kind == kind {
			return ev
		}
	}
	return conversation.Event{}
}

// TestFirstPageBeforeResult runs a SELECT of many rows on each engine: the
// first page comes as a rows event while the statement runs (fewer rows
// read than it returns), before its tool_result, with the same rows.
func TestFirstPageBeforeResult(t *testing.T) {
	for _, e := range rowsEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ws, id := sqlWorkspace(t, e.source(t), e.many)
			var got events
			ans, err := ws.Ask(context.Background(), id, conversation.Question{Query: "all the rows"}, nil, got.add)
			require.NoError(t, err)
			require.Equal(t, conversation.StopEndTurn, ans.StopReason)

			kinds := got.kinds()
			require.GreaterOrEqual(t, len(kinds), 3, kinds)
			assert.Equal(t, []string{"tool_call", "rows", "tool_result"}, kinds[:3])
			page, final := got.of(conversation.EventRows), got.of(conversation.EventToolResult)
			require.NotNil(t, page.Statement)
			require.NotNil(t, final.Statement)
			assert.Equal(t, "c1", page.CallID)
			assert.Equal(t, "execute_sql", page.Tool)
			p, f := page.Statement, final.Statement
			assert.Equal(t, "running", p.Status)
			assert.Equal(t, "success", f.Status)
			assert.Equal(t, int64(20_000), f.RowCount)
			assert.Less(t, p.RowCount, f.RowCount, "the page comes while the statement runs")
			assert.True(t, p.Truncated)
			assert.Equal(t, f.SQL, p.SQL)
			assert.Equal(t, f.Columns, p.Columns)
			assert.Len(t, p.Rows, 500)
			assert.Equal(t, f.Rows, p.Rows, "the page holds the rows of the result")
			assert.Equal(t, f.Rows, ans.Statements[0].Rows)
		})
	}
}

// TestCancelAfterFirstPage cancels the turn when the first page of a
// statement that streams for a long time arrives: the statement stops on
// the server, and the turn ends cancelled with the statement's result.
func TestCancelAfterFirstPage(t *testing.T) {
	for _, e := range rowsEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			src := e.source(t)
			ws, id := sqlWorkspace(t, src, e.slow)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got events
			var cancelled time.Time
			listen := func(ev conversation.Event) {
				got.add(ev)
				if ev.Kind == conversation.EventRows {
					if e.running != "" {
						require.NotZero(t, dbtest.QueryInt(t, src, e.running), "the statement runs on the server")
					}
					cancelled = time.Now()
					cancel()
				}
			}
			ans, err := ws.Ask(ctx, id, conversation.Question{Query: "all the rows"}, nil, listen)
			require.NoError(t, err)
			assert.Equal(t, conversation.StopCancelled, ans.StopReason)
			require.False(t, cancelled.IsZero(), "no rows event came; events: %v", got.kinds())
			t.Logf("the turn ended %v after the cancel", time.Since(cancelled))
			kinds := got.kinds()
			require.GreaterOrEqual(t, len(kinds), 3, kinds)
			assert.Equal(t, []string{"tool_call", "rows", "tool_result"}, kinds[:3])
			require.NotNil(t, got.of(conversation.EventToolResult).Statement)
			assert.Equal(t, "cancelled", got.of(conversation.EventToolResult).Statement.Status)
			if e.running == "" {
				return
			}
			// The statement would run for 1,000 s: gone well before means the
			// cancel reached the server.
			deadline := time.Now().Add(2 * time.Minute)
			for dbtest.QueryInt(t, src, e.running) != 0 {
				require.True(t, time.Now().Before(deadline), "the cancelled statement still runs on the server 2 minutes later")
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
