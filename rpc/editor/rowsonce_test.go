package editor_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/rpc/editor"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// hundredThousand is a SELECT of 100,000 rows on SQLite.
const hundredThousand = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000) " +
	"SELECT n, 'customer ' || n AS name, n * 1.5 AS total FROM c"

// TestRowsOnce runs a turn of 100,000 rows for a client of protocol
// version 1 and for one that announces rowsOnce, and counts the bytes of
// each turn's messages: the page of 500 rows goes in rows, tool_result and
// the response for the first, once for the second, which still finds
// every row of the page in the notifications.
func TestRowsOnce(t *testing.T) {
	src := dbtest.SQLite(t)
	bytes := map[bool]int{}
	for _, rowsOnce := range []bool{false, true} {
		model := &modeltest.Model{Steps: []modeltest.Step{
			modeltest.Call("c1", "execute_sql", mustJSON(t, map[string]string{"sql": hundredThousand})),
			modeltest.Answer("There are 100,000 rows."),
		}}
		c := startReal(t, src, model, map[string]bool{"confirm": true, "rowsOnce": rowsOnce})
		var info conversation.Info
		c.Result("session/new", nil, &info)
		before := len(c.Messages())
		id := c.Start("chat/turn", map[string]any{"sessionId": info.SessionID, "query": "all customers"})
		resp := c.Wait(id)
		require.Nil(t, resp.Error)
		var pages [][][]any // every page of rows the client got, in order
		size := 0
		for _, m := range c.Messages()[before:] {
			size += len(m.Raw)
			var body struct {
				Kind       string `json:"kind"`
				Statement  *pageOf
				Statements []pageOf
			}
			if m.Method == "chat/progress" {
				require.NoError(t, json.Unmarshal(m.Params, &body))
			} else if string(m.ID) == string(id) {
				require.NoError(t, json.Unmarshal(m.Result, &body))
			}
			if body.Statement != nil {
				pages = append(pages, body.Statement.check(t, rowsOnce)...)
				if body.Kind == "tool_result" && rowsOnce {
					assert.True(t, body.Statement.RowsSent, "the tool_result after rows refers to them")
				}
			}
			for _, st := range body.Statements {
				assert.Equal(t, "c1", st.CallID)
				assert.Equal(t, int64(100000), st.RowCount)
				pages = append(pages, st.check(t, rowsOnce)...)
			}
		}
		want := 3
		if rowsOnce {
			want = 1
		}
		require.Len(t, pages, want, "the pages of rows sent")
		for _, page := range pages {
			require.Len(t, page, 500)
			assert.Equal(t, []any{json.Number("500"), "customer 500", json.Number("750")}, page[499])
		}
		bytes[rowsOnce] = size
	}
	t.Logf("a turn of 100,000 rows sends %d bytes (notifications and response) to a client of protocol version 1, %d to one that announces rowsOnce (%.0f%%)",
		bytes[false], bytes[true], 100*float64(bytes[true])/float64(bytes[false]))
	assert.Less(t, bytes[true]*2, bytes[false], "the page is sent once")
}

// pageOf is a statement as a client of the rows it sends reads it.
type pageOf struct {
	CallID   string            `json:"callId"`
	RowCount int64             `json:"rowCount"`
	Rows     []json.RawMessage `json:"rows"`
	RowsSent bool              `json:"rowsSent"`
	hasRows  bool
}

func (p *pageOf) UnmarshalJSON(data []byte) error {
	type plain pageOf
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	_, p.hasRows = keys["rows"]
	return json.Unmarshal(data, (*plain)(p))
}

// check returns the statement's page, if it carries one: a statement
// either carries its rows or says they were sent.
func (p pageOf) check(t *testing.T, rowsOnce bool) [][][]any {
	t.Helper()
	if !rowsOnce {
		assert.False(t, p.RowsSent)
	}
	if p.RowsSent {
		assert.False(t, p.hasRows, "a statement whose rows were sent leaves them out")
		return nil
	}
	require.True(t, p.hasRows, "a statement carries rows or says where they went")
	var rows [][]any
	for _, raw := range p.Rows {
		var row []any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&row))
		rows = append(rows, row)
	}
	return [][][]any{rows}
}

// startReal serves a workspace on the real database src, with model, to a
// client that announces capabilities.
func startReal(t testing.TB, src sessionio.Source, model conversation.Model, capabilities map[string]bool) *editortest.Client {
	t.Helper()
	c, _ := startRealHome(t, sessionio.Home{Dir: t.TempDir()}, src, model, capabilities)
	return c
}

// startRealHome is startReal on home; stop ends the client's input and
// waits for the server to finish, as an editor that quits.
func startRealHome(t testing.TB, home sessionio.Home, src sessionio.Source, model conversation.Model, capabilities map[string]bool) (c *editortest.Client, stop func()) {
	t.Helper()
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          home,
		Model:         func() (conversation.Model, error) { return model, nil },
		Sources:       func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
		DefaultSource: src.Name,
	})
	t.Cleanup(func() { ws.Close() })
	server := editor.NewServer(ws, editor.Options{Name: "aiq-rpc", Version: "test", Home: home, ModelConfigured: true})
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Serve(context.Background(), toServer, fromServer)
	}()
	c = editortest.New(t, clientIn, clientOut)
	// The server's last writes go before the home is removed.
	t.Cleanup(func() { clientOut.Close(); waitServed(t, done) })
	var res map[string]any
	c.Result("initialize", map[string]any{"capabilities": capabilities}, &res)
	stop = func() {
		clientOut.Close()
		select {
		case <-done:
		case <-time.After(editortest.Timeout):
			t.Fatal("the server did not end after its input did")
		}
	}
	return c, stop
}

// waitServed waits for the server whose Serve closes done to end.
func waitServed(t testing.TB, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(editortest.Timeout):
		t.Error("the server did not end after its input did")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
