package sessionio_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

var logCreated = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func openLog(t *testing.T, path string) *sessionio.LogFile {
	t.Helper()
	l, err := sessionio.OpenLog(path, sessionio.Metadata{CreatedAt: logCreated, DataSource: "db", DatabaseType: "sqlite"},
		[]sessionio.Message{{Role: "system", Content: "This session logs the tool calls"}})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func turn(n int) []sessionio.Message {
	id := fmt.Sprintf("call_%d", n)
	return []sessionio.Message{
		{Role: "user", Content: fmt.Sprintf("SELECT %d", n)},
		{Role: "assistant", ToolCalls: []sessionio.ToolCall{{ID: id, Type: "function",
			Function: sessionio.FunctionCall{Name: "execute_sql", Arguments: fmt.Sprintf(`{"sql":"SELECT %d"}`, n)}}}},
		{Role: "tool", ToolCallID: id, Content: fmt.Sprintf(`{"status":"success","rows":[[%d]],"note":"a \"quoted\" word"}`, n)},
		{Role: "assistant"},
	}
}

// logged is a log file as read back.
type logged struct {
	Metadata sessionio.Metadata
	Chat     []sessionio.Message
}

// readLog checks that the file is one the CLI loads and returns its
// messages.
func readLog(t *testing.T, path string) (logged, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))
	f, _, err := sessionio.Decode(data)
	require.NoError(t, err)
	out := logged{Metadata: f.Metadata}
	for _, e := range f.Elements {
		require.NoError(t, e.Err)
		out.Chat = append(out.Chat, e.Message)
	}
	return out, data
}

// TestLogFileAppends: an append adds the messages at the end without
// changing a byte before them, and moves last_updated.
func TestLogFileAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "mcp_20261128_db.json")
	l := openLog(t, path)
	require.NoError(t, l.Append(turn(1), logCreated.Add(time.Minute)))
	_, before := readLog(t, path)
	require.NoError(t, l.Append(turn(2), logCreated.Add(2*time.Minute)))
	f, after := readLog(t, path)

	require.Len(t, f.Chat, 9)
	assert.EqualValues(t, "system", f.Chat[0].Role)
	assert.Equal(t, "SELECT 2", f.Chat[5].Content)
	assert.Equal(t, `{"status":"success","rows":[[2]],"note":"a \"quoted\" word"}`, f.Chat[7].Content)
	assert.Equal(t, logCreated.Add(2*time.Minute), f.Metadata.LastUpdated.UTC())
	assert.Equal(t, logCreated, f.Metadata.CreatedAt.UTC())

	// Only last_updated and the tail differ in what was there before.
	i := bytes.Index(before, []byte(`"last_updated"`))
	assert.Equal(t, before[:i], after[:i])
	tail := len(before) - len("\n  ]\n}\n")
	j := bytes.Index(before, []byte(`"data_source"`))
	assert.Equal(t, before[j:tail], after[j:tail])

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// TestLogFileConcurrentWriters: writers that each open the file append
// their messages whole, and none is lost.
func TestLogFileConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.json")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := openLog(t, path)
			for n := range 25 {
				assert.NoError(t, l.Append(turn(w*100+n), logCreated))
			}
		}()
	}
	wg.Wait()
	f, _ := readLog(t, path)
	assert.Len(t, f.Chat, 1+8*25*4)
	seen := map[string]bool{}
	for i := 1; i < len(f.Chat); i += 4 {
		require.EqualValues(t, "user", f.Chat[i].Role, "message %d starts a turn", i)
		id := f.Chat[i+1].ToolCalls[0].ID
		assert.Equal(t, id, f.Chat[i+2].ToolCallID, "a turn's messages stay together")
		seen[id] = true
	}
	assert.Len(t, seen, 200)
}

// TestLogFileReplaced: when another writer replaces the file (an editor
// that saved the log as a session), the next append goes to the new file.
func TestLogFileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.json")
	l := openLog(t, path)
	require.NoError(t, l.Append(turn(1), logCreated))
	f, _ := readLog(t, path)
	data, err := sessionio.Encode(&sessionio.File{Metadata: f.Metadata, Chat: f.Chat, Encoded: make([]sessionio.EncodedMessage, len(f.Chat))})
	require.NoError(t, err)
	require.NoError(t, sessionio.WriteFile(path, data))
	require.NoError(t, l.Append(turn(2), logCreated))
	f, _ = readLog(t, path)
	assert.Len(t, f.Chat, 9)
}

// TestLogFileNotAppendable: a file that does not end as a log is never
// written to.
func TestLogFileNotAppendable(t *testing.T) {
	for name, content := range map[string]string{
		"empty":       "",
		"not json":    "hello\n",
		"extra key":   "{\n  \"metadata\": {},\n  \"raw_messages\": [\n    {}\n  ],\n  \"x\": 1\n}\n",
		"cut in half": "{\n  \"metadata\": {},\n  \"raw_messages\": [\n    {\"role\": \"us",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			l := openLog(t, path)
			assert.ErrorIs(t, l.Append(turn(1), logCreated), sessionio.ErrNotAppendable)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(data))
		})
	}
}

// TestLogFileFull: an append that would take the file past MaxFileSize
// writes nothing and says so.
func TestLogFileFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.json")
	l := openLog(t, path)
	big := []sessionio.Message{{Role: "user", Content: strings.Repeat("x", sessionio.MaxFileSize/3)}}
	require.NoError(t, l.Append(big, logCreated))
	require.NoError(t, l.Append(big, logCreated))
	_, before := readLog(t, path)
	assert.ErrorIs(t, l.Append(big, logCreated), sessionio.ErrLogFull)
	_, after := readLog(t, path)
	assert.Equal(t, before, after)
}

// TestRemoveStaleTempsOfGoneProcess: the temporary file of a save whose
// process is gone goes at the next start, however young; one of a process
// that runs stays.
func TestRemoveStaleTempsOfGoneProcess(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	dead := filepath.Join(dir, fmt.Sprintf(".session-%d-123.tmp", gone.Process.Pid))
	alive := filepath.Join(dir, fmt.Sprintf(".session-%d-456.tmp", os.Getppid()))
	for _, p := range []string{dead, alive} {
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
	}
	n, err := sessionio.RemoveStaleTemps(dir, 10*time.Minute, time.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, dead)
	assert.FileExists(t, alive, "its process may be saving now")
}

// TestLogFileNotRegular: a FIFO where the log would be is not opened,
// which would block.
func TestLogFileNotRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.json")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	_, err := sessionio.OpenLog(path, sessionio.Metadata{CreatedAt: logCreated, DataSource: "db", DatabaseType: "sqlite"}, nil)
	assert.ErrorIs(t, err, sessionio.ErrNotAppendable)
}
