package conversation_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// liveHeap is the heap in use after a full collection: what the objects
// still reachable hold.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// writeCLIFile writes a session file of about size bytes as the CLI
// writes them, and returns its path and size. The file's bytes are gone
// from the heap when it returns.
func writeCLIFile(t *testing.T, size int) (string, int64) {
	t.Helper()
	data := sessiontest.GenerateCLIFile(size)
	path := filepath.Join(t.TempDir(), "large.session.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path, int64(len(data))
}

// TestSessionMemory: a 5 MiB session, loaded and then saved twice (the
// first save copies what the load kept, the second what the first wrote),
// holds at most 1.5 times its file size in the heap. It keeps its
// messages, and of their bytes in the file only a part (conversation/keep.go),
// never the file itself.
func TestSessionMemory(t *testing.T) {
	path, size := writeCLIFile(t, 5<<20)
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	// The heap with the session at each step; what it holds is the
	// difference with the heap once it is gone, measured last, so that
	// nothing the test made before counts.
	steps := []string{"loaded"}
	with := []int64{liveHeap()}
	for _, when := range []string{"saved once", "saved twice"} {
		out, notes, err := s.Encode()
		require.NoError(t, err)
		require.Empty(t, notes)
		require.NoError(t, sessionio.WriteFile(path, out))
		steps, with = append(steps, when), append(with, liveHeap())
	}
	require.NotEmpty(t, s.History)
	s = nil
	without := liveHeap()
	for i, when := range steps {
		held := with[i] - without
		ratio := float64(held) / float64(size)
		t.Logf("%s: %.1f MiB in the heap for a %.1f MiB file: %.2fx", when, float64(held)/(1<<20), float64(size)/(1<<20), ratio)
		assert.LessOrEqual(t, ratio, 1.5, "%s: the session holds %.2f times its file", when, ratio)
		// Its messages alone are most of the file: less would mean that
		// the session outlived s = nil and nothing was measured.
		assert.GreaterOrEqual(t, ratio, 0.5, "%s: the session's %.2f times its file is too little to be it", when, ratio)
	}
}
