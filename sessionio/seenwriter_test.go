package sessionio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeSeenWhole is the seen file as json.Encoder writes a seenFile: what
// a SeenWriter must write, byte for byte.
func encodeSeenWhole(t *testing.T, results []SeenResult) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(seenFile{Version: seenVersion, Results: results}))
	return b.Bytes()
}

// TestSeenWriterMatchesEncoder: a SeenWriter that writes a session's seen
// file turn after turn writes what encoding the whole file would, when
// results are added, trimmed from the front, given with another count or
// other rows, and when the oldest lose their rows to the bound; it reuses
// the bytes of the results it wrote unchanged.
func TestSeenWriterMatchesEncoder(t *testing.T) {
	session := filepath.Join(t.TempDir(), "session_20260101000000.json")
	var w SeenWriter
	var results []SeenResult
	check := func(step string) []SeenResult {
		t.Helper()
		written, err := w.Write(session, results)
		require.NoError(t, err, step)
		got, err := os.ReadFile(SeenPath(session))
		require.NoError(t, err)
		assert.Equal(t, string(encodeSeenWhole(t, written)), string(got), step)
		read, err := ReadSeen(session)
		require.NoError(t, err, step)
		assert.Len(t, read, len(results), step)
		return written
	}
	result := func(i, rows, width int) SeenResult {
		r := SeenResult{CallID: fmt.Sprintf("call_%d", i), SQL: `SELECT "a<b>&" FROM t`, Columns: []string{"id", "note"},
			ColumnTypes: []string{"integer", "text"}, RowCount: int64(rows), Truncated: i%3 == 0}
		for j := range rows {
			r.Rows = append(r.Rows, []any{json.Number(fmt.Sprint(j)), strings.Repeat("é\"\t<", width), nil, 3.25, true})
		}
		return r
	}
	for i := range 5 {
		results = append(results, result(i, 20, 4))
		results = check(fmt.Sprintf("turn %d", i))
	}
	before := w.written["call_1"].data
	results = append(results[1:], result(5, 0, 0))
	results[3].Rows = [][]any{} // an empty page, not none
	results = check("trimmed, one empty")
	assert.Same(t, &before[0], &w.written["call_1"].data[0], "an unchanged result's bytes are reused")

	results[0].RowCount = 99
	results[1].Rows = result(1, 3, 1).Rows
	results[2].SQL = "SELECT 2"
	results = check("changed in three ways")
	assert.EqualValues(t, 99, results[0].RowCount)

	// Past the bound the oldest lose their rows; the next write keeps
	// them dropped and encodes nothing again.
	for i := 6; i < 9; i++ {
		results = append(results, result(i, 1000, 200))
	}
	results = check("over the bound")
	assert.True(t, results[0].RowsDropped)
	assert.Nil(t, results[0].Rows)
	fi, err := os.Stat(SeenPath(session))
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(MaxSeenSize))
	check("again")

	_, err = w.Write(session, nil)
	require.NoError(t, err)
	assert.NoFileExists(t, SeenPath(session))
}
