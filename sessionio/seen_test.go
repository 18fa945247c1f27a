package sessionio_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
)

// TestSeenBound: five results of about 700 KiB each do not fit in the
// seen file's 2 MiB; the oldest lose their rows first and keep their
// counts, the newest keep theirs, and the file stays within the bound,
// 0600, and reads back as written.
func TestSeenBound(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "session_20260101000000.json")
	require.NoError(t, os.WriteFile(session, []byte("{}"), 0o600))
	value := strings.Repeat("x", 700)
	var results []sessionio.SeenResult
	for i := range 5 {
		var rows [][]any
		for range 1000 {
			rows = append(rows, []any{value})
		}
		results = append(results, sessionio.SeenResult{CallID: string(rune('a' + i)), SQL: "SELECT v FROM t", Columns: []string{"v"},
			Rows: rows, RowCount: 5000 + int64(i)})
	}
	written, err := sessionio.WriteSeen(session, results)
	require.NoError(t, err)
	require.Len(t, written, 5)
	assert.NotNil(t, results[0].Rows, "the caller's results are left as they were")

	fi, err := os.Stat(sessionio.SeenPath(session))
	require.NoError(t, err)
	assert.LessOrEqual(t, fi.Size(), int64(sessionio.MaxSeenSize))
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	read, err := sessionio.ReadSeen(session)
	require.NoError(t, err)
	require.Len(t, read, 5)
	kept := 0
	for i, r := range read {
		assert.Equal(t, 5000+int64(i), r.RowCount, "result %d keeps its count", i)
		if r.RowsDropped {
			assert.Nil(t, r.Rows)
			assert.Zero(t, kept, "result %d lost its rows after a newer one kept them", i)
			continue
		}
		kept++
		require.Len(t, r.Rows, 1000)
		assert.Equal(t, value, r.Rows[999][0])
	}
	assert.Equal(t, 2, kept, "the two newest fit in 2 MiB")
	assert.True(t, read[4].Rows != nil)
}

// TestSeenNumbersAndRemove: numbers come back as written; no results
// removes the file; a seen file whose session is gone is removed, one
// whose session is there is left.
func TestSeenNumbersAndRemove(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "session_a.json")
	b := filepath.Join(dir, "session_b.json")
	for _, p := range []string{a, b} {
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
		_, err := sessionio.WriteSeen(p, []sessionio.SeenResult{{CallID: "c1", Columns: []string{"n"},
			Rows: [][]any{{json.Number("12345678901234567890")}, {nil}}, RowCount: 2}})
		require.NoError(t, err)
	}
	read, err := sessionio.ReadSeen(a)
	require.NoError(t, err)
	require.Len(t, read, 1)
	assert.Equal(t, [][]any{{json.Number("12345678901234567890")}, {nil}}, read[0].Rows)

	require.NoError(t, os.Remove(a))
	n, err := sessionio.RemoveOrphanSeen(dir)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, sessionio.SeenPath(a))
	assert.FileExists(t, sessionio.SeenPath(b))

	_, err = sessionio.WriteSeen(b, nil)
	require.NoError(t, err)
	assert.NoFileExists(t, sessionio.SeenPath(b))
	read, err = sessionio.ReadSeen(b)
	require.NoError(t, err)
	assert.Empty(t, read)
}
