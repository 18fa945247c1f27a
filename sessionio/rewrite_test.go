package sessionio_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
)

// version is the content of the nth save in the Rewriter tests: lengths
// that go up and down, so that writing over a spare must cut it.
func version(n int) []byte {
	return []byte(fmt.Sprintf(`{"n":%d,"pad":%q}`, n, strings.Repeat("x", (n%3)*5000)))
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Sys().(*syscall.Stat_t).Ino
}

// hidden lists the hidden files in dir.
func hidden(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	return names
}

func TestRewriterReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session_20261203000000.json")
	require.NoError(t, os.WriteFile(path, version(0), 0o644))
	var r sessionio.Rewriter
	for n := 1; n <= 6; n++ {
		require.NoError(t, r.Write(path, version(n)))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(version(n)), string(data), "save %d", n)
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "save %d", n)
		assert.LessOrEqual(t, len(hidden(t, dir)), 1, "at most one spare")
	}
	require.NoError(t, r.Close())
	assert.Empty(t, hidden(t, dir), "Close removes the spare")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

// TestRewriterWritesOverTheOldVersion is the point of a Rewriter: from the
// third save on, each save writes into the file two saves back, so the
// kernel finds no new pages for it.
func TestRewriterWritesOverTheOldVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	var r sessionio.Rewriter
	defer r.Close()
	var inodes []uint64
	for n := range 6 {
		require.NoError(t, r.Write(path, version(n)))
		inodes = append(inodes, inode(t, path))
	}
	for n := 2; n < 6; n++ {
		assert.Equal(t, inodes[n-2], inodes[n], "save %d went into the file of save %d", n, n-2)
		assert.NotEqual(t, inodes[n-1], inodes[n], "save %d is a new file at the path, not the one a reader may hold", n)
	}
}

// A file with another name (a hard link the user made) is never written
// over: that name keeps the version it had.
func TestRewriterLeavesOtherLinksAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	other := filepath.Join(dir, "backup.json")
	var r sessionio.Rewriter
	defer r.Close()
	require.NoError(t, r.Write(path, version(1)))
	require.NoError(t, os.Link(path, other))
	for n := 2; n <= 5; n++ {
		require.NoError(t, r.Write(path, version(n)))
	}
	data, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, string(version(1)), string(data))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(version(5)), string(data))
}

// Another process's start may remove a spare (RemoveStaleTemps, for one a
// day old), or put something else under its name: the next save writes a
// new file.
func TestRewriterSpareGone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	var r sessionio.Rewriter
	defer r.Close()
	for n := range 3 {
		require.NoError(t, r.Write(path, version(n)))
	}
	spares := hidden(t, dir)
	require.Len(t, spares, 1)
	require.NoError(t, os.Remove(spares[0]))
	require.NoError(t, r.Write(path, version(3)))
	spares = hidden(t, dir)
	require.Len(t, spares, 1)
	target := filepath.Join(dir, "elsewhere.json")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o600))
	require.NoError(t, os.Remove(spares[0]))
	require.NoError(t, os.Symlink(target, spares[0]))
	require.NoError(t, r.Write(path, version(4)))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(version(4)), string(data))
	data, err = os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(data), "a link in the spare's place is not followed")
}

// A new folder (the session saved elsewhere) leaves the old folder's spare
// behind it removed.
func TestRewriterMovesFolder(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	var r sessionio.Rewriter
	defer r.Close()
	for n := range 3 {
		require.NoError(t, r.Write(filepath.Join(a, "s.json"), version(n)))
	}
	require.NoError(t, r.Write(filepath.Join(b, "s.json"), version(3)))
	assert.Empty(t, hidden(t, a))
}

func TestRemoveStaleTempsSpares(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mine := filepath.Join(dir, fmt.Sprintf(".session-%d-1.spare", os.Getpid()))
	oldMine := filepath.Join(dir, fmt.Sprintf(".session-%d-2.spare", os.Getpid()))
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	gone := filepath.Join(dir, fmt.Sprintf(".session-%d-3.spare", ended.Process.Pid))
	for _, p := range []string{mine, oldMine, gone} {
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
	}
	hourAgo, daysAgo := now.Add(-time.Hour), now.Add(-49*time.Hour)
	require.NoError(t, os.Chtimes(mine, hourAgo, hourAgo))
	require.NoError(t, os.Chtimes(oldMine, daysAgo, daysAgo))
	n, err := sessionio.RemoveStaleTemps(dir, 10*time.Minute, now)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.FileExists(t, mine, "an hour-old spare of a running process is its open session's")
	assert.NoFileExists(t, oldMine)
	assert.NoFileExists(t, gone)
}
