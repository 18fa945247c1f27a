package mcp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/rpc/mcp"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

const deleteSQL = "DELETE FROM orders WHERE status = 'pending'"

// TestWriteAsksTheUser: a DELETE sends elicitation/create with the
// statement, what it does, the rows its dry run counted and the two
// choices, and runs only on an explicit accept of allow_once.
func TestWriteAsksTheUser(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(ctx context.Context) (*sdk.ElicitResult, error)
		runs   bool
	}{
		{"allow once", answer("accept", "allow_once"), true},
		{"accept reject", answer("accept", "reject"), false},
		{"decline", personAnswer("decline", ""), false},
		{"cancel", personAnswer("cancel", ""), false},
		{"accept without content", answer("accept", ""), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			e := &elicitor{answer: c.answer}
			res := call(t, f.connect(e.options()), "execute_sql", map[string]any{"sql": deleteSQL})
			asked := e.requests()
			require.Len(t, asked, 1)
			assert.Contains(t, asked[0].Message, deleteSQL)
			assert.Contains(t, asked[0].Message, "writes to the database")
			assert.Contains(t, asked[0].Message, "data source db (sqlite)")
			// The dry run counted the one pending order and rolled it back.
			assert.Contains(t, asked[0].Message, "This DELETE would remove 1 row")
			m := structured(t, res)
			if c.runs {
				require.False(t, res.IsError, text(res))
				assert.Equal(t, "success", m["status"])
				assert.Equal(t, int64(3), f.count())
				assert.Equal(t, "Statement executed successfully. 1 row(s) affected.", text(res))
				return
			}
			assert.True(t, res.IsError)
			assert.Equal(t, "rejected", m["status"])
			assert.Contains(t, text(res), "the user declined", "a person read it and said no")
			assert.Equal(t, int64(4), f.count(), "the row stays")
		})
	}
}

// TestWriteAsksEachRevision: the form of the question suits the revision
// the client speaks, titled choices by enumNames before 2025-11-25 and by
// oneOf from it, and either way the answer runs the write.
func TestWriteAsksEachRevision(t *testing.T) {
	for _, c := range []struct{ version, titles string }{
		{"2025-06-18", "enumNames"},
		{"2025-11-25", "oneOf"},
	} {
		t.Run(c.version, func(t *testing.T) {
			f := newFixture(t, fixtureOptions{})
			e := &elicitor{answer: answer("accept", "allow_once")}
			res := call(t, f.connectAt(c.version, e.options()), "execute_sql", map[string]any{"sql": deleteSQL})
			require.False(t, res.IsError, text(res))
			asked := e.requests()
			require.Len(t, asked, 1)
			schema, err := json.Marshal(asked[0].RequestedSchema)
			require.NoError(t, err)
			assert.Contains(t, string(schema), `"`+c.titles+`"`)
			assert.Contains(t, string(schema), `"allow_once"`)
			assert.Equal(t, int64(3), f.count())
		})
	}
}

// personAnswer answers as a person does, after reading the question: the
// pause is the reading, longer than a host that answers for its user
// takes (mcp.DefaultHostAnswer), not a wait for anything.
func personAnswer(action, decision string) func(context.Context) (*sdk.ElicitResult, error) {
	return func(ctx context.Context) (*sdk.ElicitResult, error) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return answer(action, decision)(ctx)
	}
}

func answer(action, decision string) func(context.Context) (*sdk.ElicitResult, error) {
	return func(context.Context) (*sdk.ElicitResult, error) {
		r := &sdk.ElicitResult{Action: action}
		if decision != "" {
			r.Content = map[string]any{"decision": decision}
		}
		return r, nil
	}
}

// TestWriteTimesOut: a user who never answers rejects the write when the
// timeout passes; the server goes on serving.
func TestWriteTimesOut(t *testing.T) {
	f := newFixture(t, fixtureOptions{server: mcp.Options{ConfirmTimeout: 200 * time.Millisecond}})
	e := &elicitor{answer: func(ctx context.Context) (*sdk.ElicitResult, error) {
		<-ctx.Done() // never answers; the server gives up and cancels
		return nil, ctx.Err()
	}}
	cs := f.connect(e.options())
	res := call(t, cs, "execute_sql", map[string]any{"sql": deleteSQL})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "no answer came within 200ms")
	assert.Equal(t, int64(4), f.count())
	res = call(t, cs, "list_tables", nil)
	assert.False(t, res.IsError, text(res))
}

// TestWriteWithoutElicitation: a client that cannot ask its user gets an
// error that says where to run the statement, and nothing runs, whatever
// the call claims of itself.
func TestWriteWithoutElicitation(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	cs := f.connect(nil)
	res := call(t, cs, "execute_sql", map[string]any{"sql": deleteSQL})
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "declares no elicitation")
	assert.Contains(t, text(res), "aiq-rpc ask")
	assert.Equal(t, int64(4), f.count())

	// The model's claims: an argument, and a readOnlyHint in _meta.
	res = call(t, cs, "execute_sql", map[string]any{"sql": deleteSQL, "readOnlyHint": true})
	assert.True(t, res.IsError)
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": deleteSQL},
		Meta: sdk.Meta{"readOnlyHint": true, "approved": true}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, int64(4), f.count())
}

// TestOutsideReadAsks: a read that reaches outside the database asks too,
// and says so.
func TestOutsideReadAsks(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	e := &elicitor{answer: answer("decline", "")}
	res := call(t, f.connect(e.options()), "execute_sql", map[string]any{"sql": "ATTACH DATABASE '/tmp/x.sqlite' AS x"})
	assert.True(t, res.IsError)
	asked := e.requests()
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0].Message, "ATTACH DATABASE")
	assert.Contains(t, asked[0].Message, "reaches outside the database", "the prompt says what kind of risk it is")
}

// TestCostlyReadAsks: a read the engine estimates above the source's
// max_estimated_rows asks as a write does, says why, and runs only when
// allowed.
func TestCostlyReadAsks(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	dbtest.Exec(t, f.src, "CREATE TABLE big (id integer PRIMARY KEY)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT i FROM c")
	src := f.src
	src.MaxEstimatedRows = 1000
	f.writeSources(src)
	e := &elicitor{answer: answer("decline", "")}
	cs := f.connect(e.options())
	res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id FROM big"})
	assert.True(t, res.IsError, text(res))
	asked := e.requests()
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0].Message, "only reads, but is costly")
	assert.Contains(t, asked[0].Message, "1,000")

	cheap := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT id FROM big WHERE id = 5"})
	assert.False(t, cheap.IsError, text(cheap))
	assert.Len(t, e.requests(), 1, "a cheap read does not ask")
}
