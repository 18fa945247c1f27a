package editor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// exportFixture is a session on a real SQLite database with a table of
// awkward values.
func exportFixture(t *testing.T) (*editortest.Client, string) {
	t.Helper()
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE v (id integer PRIMARY KEY, note text, amount real)",
		`INSERT INTO v VALUES (1, '=1+1', -2.5), (2, 'a,b', NULL), (3, 'say "hi"', 3), (4, NULL, 0),
			(5, '', 1e21), (6, '-x', 7), (7, '@SUM(A1)', 8), (8, 'two
lines', 9), (9, '+1', 10), (10, ' pad', 11)`,
	)
	c := startReal(t, src, &modeltest.Model{}, map[string]bool{"confirm": true, "rowsOnce": true})
	var info conversation.Info
	c.Result("session/new", nil, &info)
	return c, info.SessionID
}

// TestExportCSV writes a result as RFC 4180 CSV: CRLF, quotes where
// needed, NULL empty, an empty text quoted, and text a spreadsheet would
// run guarded with a leading quote, numbers (negative ones too) as they
// are.
func TestExportCSV(t *testing.T) {
	c, id := exportFixture(t)
	path := filepath.Join(t.TempDir(), "v.csv")
	var res conversation.Exported
	c.Result("result/export", map[string]any{"sessionId": id, "sql": "SELECT id, note, amount FROM v ORDER BY id", "format": "csv", "path": path}, &res)
	assert.Equal(t, int64(10), res.RowCount)
	assert.Equal(t, path, res.Path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	want := "id,note,amount\r\n" +
		"1,\"'=1+1\",-2.5\r\n" +
		"2,\"a,b\",\r\n" +
		"3,\"say \"\"hi\"\"\",3\r\n" +
		"4,,0\r\n" +
		"5,\"\",1e+21\r\n" +
		"6,\"'-x\",7\r\n" +
		"7,\"'@SUM(A1)\",8\r\n" +
		"8,\"two\nlines\",9\r\n" +
		"9,\"'+1\",10\r\n" +
		"10,\" pad\",11\r\n"
	assert.Equal(t, want, string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
}

// TestExportByCallID exports a statement the conversation ran, by its
// call id, as JSON and as Markdown: every row, not only the page kept.
func TestExportByCallID(t *testing.T) {
	c, id := exportFixture(t)
	var ran struct {
		Statement conversation.Statement `json:"statement"`
	}
	big := "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1200) SELECT n, 'row ' || n AS name FROM c"
	c.Result("chat/runSql", map[string]any{"sessionId": id, "sql": big}, &ran)
	require.NotEmpty(t, ran.Statement.CallID)
	assert.True(t, ran.Statement.Truncated, "the statement's result keeps a page")
	dir := t.TempDir()

	var res conversation.Exported
	c.Result("result/export", map[string]any{"sessionId": id, "callId": ran.Statement.CallID, "format": "json", "path": filepath.Join(dir, "all.json")}, &res)
	assert.Equal(t, int64(1200), res.RowCount)
	assert.Equal(t, big, res.SQL)
	var rows []map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "all.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rows))
	require.Len(t, rows, 1200)
	assert.Equal(t, map[string]any{"n": 1200.0, "name": "row 1200"}, rows[1199])

	c.Result("result/export", map[string]any{"sessionId": id, "callId": ran.Statement.CallID, "format": "markdown", "path": filepath.Join(dir, "all.md")}, &res)
	data, err = os.ReadFile(filepath.Join(dir, "all.md"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 1202)
	assert.Equal(t, "| n | name |", lines[0])
	assert.Equal(t, "| --- | --- |", lines[1])
	assert.Equal(t, "| 1200 | row 1200 |", lines[1201])
}

// TestExportBadInput: each mistake is -32602 (an unknown session -32001)
// with a sentence that says what to do, nothing is written, and the
// server goes on.
func TestExportBadInput(t *testing.T) {
	c, id := exportFixture(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "kept.csv")
	require.NoError(t, os.WriteFile(existing, []byte("mine"), 0o600))
	sql := "SELECT id FROM v"
	for _, bad := range []struct {
		params map[string]any
		code   int
		says   string
	}{
		{map[string]any{"sessionId": id, "sql": sql, "format": "xlsx", "path": filepath.Join(dir, "a.xlsx")}, -32602, "csv, json, markdown"},
		{map[string]any{"sessionId": id, "sql": sql, "format": "csv", "path": filepath.Join(dir, "missing", "a.csv")}, -32602, "does not exist"},
		{map[string]any{"sessionId": id, "sql": sql, "format": "csv", "path": dir}, -32602, "is a folder"},
		{map[string]any{"sessionId": id, "sql": sql, "format": "csv", "path": existing}, -32602, "overwrite: true"},
		{map[string]any{"sessionId": id, "callId": "call_nowhere", "format": "csv", "path": filepath.Join(dir, "b.csv")}, -32602, "no statement with callId"},
		{map[string]any{"sessionId": id, "format": "csv", "path": filepath.Join(dir, "b.csv")}, -32602, "Give callId"},
		{map[string]any{"sessionId": id, "sql": "DELETE FROM v", "format": "csv", "path": filepath.Join(dir, "b.csv")}, -32602, "only reads"},
		{map[string]any{"sessionId": id, "sql": sql, "format": "csv"}, -32602, "path is required"},
		{map[string]any{"sessionId": "s99", "sql": sql, "format": "csv", "path": filepath.Join(dir, "b.csv")}, -32001, "s99"},
		{map[string]any{"sessionId": id, "sql": "SELECT nope FROM v", "format": "csv", "path": filepath.Join(dir, "b.csv")}, -32040, "no such column"},
	} {
		m := c.Call("result/export", bad.params)
		require.NotNil(t, m.Error, "%v", bad.params)
		assert.Equal(t, bad.code, m.Error.Code, "%v: %s", bad.params, m.Error.Message)
		assert.Contains(t, m.Error.Message, bad.says)
	}
	data, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data), "an existing file is kept")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing else is written, not even a temporary file")

	var res conversation.Exported
	c.Result("result/export", map[string]any{"sessionId": id, "sql": sql, "format": "csv", "path": existing, "overwrite": true}, &res)
	data, err = os.ReadFile(existing)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "id\r\n1\r\n"), "overwritten, and the server went on: %q", data)
}

// TestExportCancel cancels a long export once it reported rows written:
// the answer says so and no file, whole or partial, is left.
func TestExportCancel(t *testing.T) {
	c, id := exportFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "long.csv")
	endless := "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000) SELECT n, 'row ' || n FROM c"
	reqID := c.Start("result/export", map[string]any{"sessionId": id, "sql": endless, "format": "csv", "path": path})
	note := c.WaitNotification("chat/progress", "rowsWritten")
	var p struct {
		RequestID   json.RawMessage `json:"requestId"`
		Kind        string          `json:"kind"`
		Message     string          `json:"message"`
		RowsWritten int64           `json:"rowsWritten"`
	}
	require.NoError(t, json.Unmarshal(note.Params, &p))
	assert.JSONEq(t, string(reqID), string(p.RequestID))
	assert.Equal(t, "status", p.Kind)
	assert.Positive(t, p.RowsWritten)
	assert.Contains(t, p.Message, "rows written")
	c.Notify("$/cancelRequest", map[string]any{"id": reqID})
	m := c.Wait(reqID)
	require.NotNil(t, m.Error)
	assert.Equal(t, -32800, m.Error.Code)
	assert.Equal(t, "The export was cancelled; no file was written.", m.Error.Message)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no partial file")
}

// TestExportCostGate: an export of a read the engine estimates above the
// source's max_estimated_rows asks chat/confirm first, as the same read in
// a turn would; rejected, it writes nothing, allowed, it writes every row.
func TestExportCostGate(t *testing.T) {
	src := dbtest.SQLite(t)
	src.MaxEstimatedRows = 1000
	dbtest.Exec(t, src, "CREATE TABLE big (id integer PRIMARY KEY)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT i FROM c")
	c := startReal(t, src, &modeltest.Model{}, map[string]bool{"confirm": true})
	asked := confirmWith(t, c, conversation.Reject, conversation.AllowOnce)
	var info conversation.Info
	c.Result("session/new", nil, &info)
	path := filepath.Join(t.TempDir(), "big.csv")
	params := map[string]any{"sessionId": info.SessionID, "sql": "SELECT id FROM big", "format": "csv", "path": path}

	m := c.Call("result/export", params)
	require.NotNil(t, m.Error, "a rejected costly export")
	assert.Equal(t, -32040, m.Error.Code, m.Error.Message)
	assert.JSONEq(t, `{"status":"rejected"}`, string(m.Error.Data), "data says the user declined it")
	require.Len(t, *asked, 1)
	assert.Equal(t, "cost", (*asked)[0].Risk)
	assert.Contains(t, (*asked)[0].Reason, "1,000")
	assert.NoFileExists(t, path)

	var res conversation.Exported
	c.Result("result/export", params, &res)
	assert.Equal(t, int64(2000), res.RowCount)
	assert.Len(t, *asked, 2)
	assert.FileExists(t, path)
}
