package sessionio_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
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
)

// session returns an encoded session whose one legacy message is text, so
// that each call with a different text gives a different, valid file.
func session(t testing.TB, text string) []byte {
	t.Helper()
	data, err := sessionio.Encode(&sessionio.File{
		Metadata: sessionio.Metadata{
			CreatedAt:    time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC),
			DataSource:   "local-mysql",
			DatabaseType: "mysql",
		},
		Messages: []sessionio.LegacyMessage{{Role: "user", Content: text}},
	})
	require.NoError(t, err)
	return data
}

// tempFiles lists the temporary files WriteFile and CreateFile left in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".session-*.tmp"))
	require.NoError(t, err)
	return names
}

func mode(t testing.TB, path string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Mode().Perm()
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	data := session(t, "hello")
	require.NoError(t, os.WriteFile(path, data, 0o600))

	got, warnings, err := sessionio.ReadFile(path)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	want, _, err := sessionio.Decode(data)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// A broken file's error says which file, so that a user can find it.
func TestReadFileInvalidNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"metadata": [}`), 0o600))

	got, _, err := sessionio.ReadFile(path)
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, sessionio.ErrInvalid)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "line 1")
}

// A huge file is refused by its size, before it is read: a sparse 4 GiB file
// would otherwise take minutes and 4 GiB of memory, which the test would
// notice as a timeout or an out-of-memory kill.
func TestReadFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.json")
	require.NoError(t, os.WriteFile(path, []byte("{}"), 0o600))
	require.NoError(t, os.Truncate(path, 4<<30))

	got, _, err := sessionio.ReadFile(path)
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, sessionio.ErrTooLarge)
	var sizeErr *sessionio.SizeError
	require.ErrorAs(t, err, &sizeErr)
	assert.Equal(t, int64(4<<30), sizeErr.Size)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "4096.0 MiB")
}

func TestReadFileFolder(t *testing.T) {
	dir := t.TempDir()
	got, _, err := sessionio.ReadFile(dir)
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, sessionio.ErrInvalid)
	assert.Contains(t, err.Error(), "folder")
	assert.Contains(t, err.Error(), dir)
}

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone.json")
	got, _, err := sessionio.ReadFile(path)
	require.Error(t, err)
	assert.Nil(t, got)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), path)
}

// A FIFO given as session path must be refused at once: opening one for
// reading waits for a writer, which never comes.
func TestReadFileFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.json")
	require.NoError(t, syscall.Mkfifo(path, 0o600))

	type result struct {
		f   *sessionio.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, _, err := sessionio.ReadFile(path)
		done <- result{f, err}
	}()

	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute): // only a blocked open waits this long
		t.Errorf("ReadFile(%s) still blocks after a minute: it opened the FIFO before checking what it is", path)
		// Open the write end, which releases the blocked open, so that the
		// goroutine ends and the rest of the result can be checked.
		w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		require.NoError(t, err, "releasing the blocked reader")
		require.NoError(t, w.Close())
		res = <-done
	}
	require.Error(t, res.err)
	assert.Nil(t, res.f)
	assert.ErrorIs(t, res.err, sessionio.ErrInvalid)
	assert.Contains(t, res.err.Error(), "not a regular file")
	assert.Contains(t, res.err.Error(), path)
}

// WriteFile writes to a folder that exists; a path in a missing folder is
// an error, so that a mistyped path creates nothing. CreateFile creates the
// sessions folder it is given, as the home's own.
func TestWriteFileNeedsItsFolder(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "home", "sessions", "s.json")
	data := session(t, "hello")

	err := sessionio.WriteFile(path, data)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.NoDirExists(t, filepath.Join(root, "home"))

	saved, err := sessionio.CreateFile(filepath.Dir(path), data, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	got, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Equal(t, data, got)
	assert.Equal(t, fs.FileMode(0o600), mode(t, saved))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Join(root, "home")))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Join(root, "home", "sessions")))
	assert.Empty(t, tempFiles(t, filepath.Dir(path)))
}

// The CLI's sessions hold conversations with a database: 0600 even when
// the file they replace was readable by others.
func TestWriteFileReplaces(t *testing.T) {
	tests := []struct {
		name    string
		oldMode fs.FileMode // 0 when there is no old file
	}{
		{name: "new file"},
		{name: "old file 0600", oldMode: 0o600},
		{name: "old file 0644", oldMode: 0o644},
		{name: "old file 0666", oldMode: 0o666},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.json")
			if tt.oldMode != 0 {
				require.NoError(t, os.WriteFile(path, session(t, "old, and longer than the new one"), 0o600))
				require.NoError(t, os.Chmod(path, tt.oldMode))
				require.Equal(t, tt.oldMode, mode(t, path))
			}
			data := session(t, "new")

			require.NoError(t, sessionio.WriteFile(path, data))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(got))
			assert.Equal(t, fs.FileMode(0o600), mode(t, path))
			assert.Empty(t, tempFiles(t, dir))
		})
	}
}

// A user may keep sessions elsewhere and link them in; saving must update
// the file linked to, not replace the link with a copy.
func TestWriteFileThroughSymlink(t *testing.T) {
	root := t.TempDir()
	targetDir := filepath.Join(root, "real")
	linkDir := filepath.Join(root, "links")
	require.NoError(t, os.Mkdir(targetDir, 0o700))
	require.NoError(t, os.Mkdir(linkDir, 0o700))
	target := filepath.Join(targetDir, "s.json")
	link := filepath.Join(linkDir, "s.json")
	require.NoError(t, os.WriteFile(target, session(t, "old"), 0o600))
	require.NoError(t, os.Symlink(target, link))
	data := session(t, "new")

	require.NoError(t, sessionio.WriteFile(link, data))

	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, info.Mode().Type(), "the link stays a link")
	dest, err := os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, target, dest)
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(got))
	assert.Empty(t, tempFiles(t, targetDir))
	assert.Empty(t, tempFiles(t, linkDir))
}

// A relative link in a folder reached through another link points from
// the folder it is really in, as the kernel reads it: base/link/s.json,
// with base/link -> a/sessions and s.json -> ../real.json, is
// base/a/real.json, not base/real.json.
func TestWriteFileThroughRelativeLinkInLinkedFolder(t *testing.T) {
	base := t.TempDir()
	sessions := filepath.Join(base, "a", "sessions")
	require.NoError(t, os.MkdirAll(sessions, 0o700))
	require.NoError(t, os.Symlink(filepath.Join("a", "sessions"), filepath.Join(base, "link")))
	real := filepath.Join(base, "a", "real.json")
	require.NoError(t, os.WriteFile(real, session(t, "old"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join("..", "real.json"), filepath.Join(sessions, "s.json")))
	data := session(t, "new")

	require.NoError(t, sessionio.WriteFile(filepath.Join(base, "link", "s.json"), data))

	got, err := os.ReadFile(filepath.Join(base, "link", "s.json"))
	require.NoError(t, err)
	assert.Equal(t, string(data), string(got), "read back through the same path")
	assert.NoFileExists(t, filepath.Join(base, "real.json"), "no stray file where the string pointed")
}

// A link whose file does not exist yet (a session linked into a synced
// folder before its first save) is written through as well: replacing the
// link with a file would silently cut the user's link.
func TestWriteFileThroughDanglingSymlink(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "real", "s.json")
	require.NoError(t, os.Mkdir(filepath.Dir(target), 0o700))
	link := filepath.Join(root, "s.json")
	require.NoError(t, os.Symlink(target, link))
	data := session(t, "first save")

	require.NoError(t, sessionio.WriteFile(link, data))

	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, info.Mode().Type(), "the link stays a link")
	got, err := os.ReadFile(target)
	require.NoError(t, err, "the file linked to was not written")
	assert.Equal(t, string(data), string(got))
}

func TestWriteFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	old := session(t, "old")
	require.NoError(t, os.WriteFile(path, old, 0o600))

	err := sessionio.WriteFile(path, bytes.Repeat([]byte(" "), sessionio.MaxFileSize+1))
	require.Error(t, err)
	assert.ErrorIs(t, err, sessionio.ErrTooLarge)
	var sizeErr *sessionio.SizeError
	require.ErrorAs(t, err, &sizeErr)
	assert.Equal(t, int64(sessionio.MaxFileSize+1), sizeErr.Size)
	assert.Contains(t, err.Error(), path)

	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, old, got, "the earlier file is untouched")
	assert.Empty(t, tempFiles(t, dir))
}

func TestCreateFileName(t *testing.T) {
	dir := t.TempDir()
	// 07:04:05 at +08:00 is 23:04:05 UTC on the day before: both the hour
	// and the date of the name must be UTC's.
	now := time.Date(2026, 2, 3, 7, 4, 5, 999_000_000, time.FixedZone("CST", 8*60*60))
	data := session(t, "first")

	path, err := sessionio.CreateFile(dir, data, now)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "session_20260202230405.json"), path)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, data, got)
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))
	assert.Empty(t, tempFiles(t, dir))
}

func TestCreateFileCreatesFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aiq", "sessions")
	path, err := sessionio.CreateFile(dir, session(t, "x"), time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "session_20260202074551.json"), path)
	assert.Equal(t, fs.FileMode(0o700), mode(t, dir))
}

// A name that is taken gets a suffix; the file that has it is never touched.
func TestCreateFileNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
	existing := map[string][]byte{
		"session_20260202074551.json":   []byte("someone else's session"),
		"session_20260202074551_2.json": []byte("and another"),
	}
	for name, data := range existing {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}

	wantNames := []string{"session_20260202074551_3.json", "session_20260202074551_4.json"}
	for i, want := range wantNames {
		data := session(t, fmt.Sprintf("session %d", i))
		path, err := sessionio.CreateFile(dir, data, now)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, want), path)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, data, got)
	}
	for name, data := range existing {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, data, got, "%s was overwritten", name)
		assert.Equal(t, fs.FileMode(0o644), mode(t, filepath.Join(dir, name)), "%s was changed", name)
	}
	assert.Empty(t, tempFiles(t, dir))
}

func TestCreateFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	_, err := sessionio.CreateFile(dir, bytes.Repeat([]byte(" "), sessionio.MaxFileSize+1), time.Now())
	require.Error(t, err)
	assert.ErrorIs(t, err, sessionio.ErrTooLarge)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// Two editors ending their chats in the same second must get two files.
func TestCreateFileConcurrent(t *testing.T) {
	const n = 20
	dir := t.TempDir()
	now := time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
	paths := make([]string, n)
	errs := make([]error, n)
	datas := make([][]byte, n)
	for i := range n {
		datas[i] = session(t, fmt.Sprintf("writer %d", i))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			paths[i], errs[i] = sessionio.CreateFile(dir, datas[i], now)
		})
	}
	wg.Wait()

	seen := map[string]int{}
	for i := range n {
		require.NoError(t, errs[i], "writer %d", i)
		if prev, dup := seen[paths[i]]; dup {
			t.Errorf("writers %d and %d both got %s", prev, i, paths[i])
		}
		seen[paths[i]] = i
		got, err := os.ReadFile(paths[i])
		require.NoError(t, err)
		assert.Equal(t, string(datas[i]), string(got), "writer %d's file holds another's content", i)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"session_20260202074551.json"}
	for k := 2; k <= n; k++ {
		want = append(want, fmt.Sprintf("session_20260202074551_%d.json", k))
	}
	assert.ElementsMatch(t, want, names, "exactly the n names, and no temporary files")
}

// Readers of a file being rewritten see one complete version or another,
// never a mix or a half-written file.
func TestWriteFileConcurrent(t *testing.T) {
	const writers, writes = 8, 30
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")

	// versions holds every file's bytes; decoded maps each file's one
	// message to the decoded file.
	versions := map[string]bool{}
	decoded := map[string]*sessionio.File{}
	addVersion := func(text string) []byte {
		data := session(t, text)
		f, _, err := sessionio.Decode(data)
		require.NoError(t, err)
		versions[string(data)] = true
		decoded[text] = f
		return data
	}
	require.NoError(t, sessionio.WriteFile(path, addVersion("initial")))
	plan := make([][][]byte, writers)
	for w := range writers {
		for i := range writes {
			plan[w] = append(plan[w], addVersion(fmt.Sprintf("writer %d, write %d", w, i)))
		}
	}

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for _, data := range plan[w] {
				assert.NoError(t, sessionio.WriteFile(path, data))
			}
		})
	}
	// Should a check below stop the test, the writers must still finish
	// before t.TempDir is removed.
	defer wg.Wait()
	writersDone := make(chan struct{})
	go func() {
		wg.Wait()
		close(writersDone)
	}()

	reads := 0
	for done := false; !done; {
		select {
		case <-writersDone:
			done = true // one more read of the final state below
		default:
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, versions[string(data)], "read a file that was never written (%d bytes):\n%s", len(data), data)

		got, warnings, err := sessionio.ReadFile(path)
		require.NoError(t, err)
		assert.Empty(t, warnings)
		require.Len(t, got.Messages, 1)
		want := decoded[got.Messages[0].Content]
		require.NotNil(t, want, "decoded a version that was never written: %q", got.Messages[0].Content)
		assert.Equal(t, want, got)
		reads++
	}
	assert.Positive(t, reads)
	assert.Empty(t, tempFiles(t, dir))
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))
}

// readOnlyTargetEnv names, for the child process of
// TestWriteFileReadOnlyFolder, the session file it must try to replace.
const readOnlyTargetEnv = "AIQ_RPC_TEST_READONLY_TARGET"

// TestMain doubles as the entry point of the child process of
// TestWriteFileReadOnlyFolder, which runs this test binary as an
// unprivileged user: root may write into any folder.
func TestMain(m *testing.M) {
	if target := os.Getenv(readOnlyTargetEnv); target != "" {
		readOnlyChild(target)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// readOnlyChild reports on stdout, for the parent to check, whether it could
// read the target (so that a failed write is due to the read-only folder,
// not to a path it cannot reach) and what WriteFile returned.
func readOnlyChild(target string) {
	if _, _, err := sessionio.ReadFile(target); err != nil {
		fmt.Printf("read: %v\n", err)
	} else {
		fmt.Println("read: ok")
	}
	if err := sessionio.WriteFile(target, []byte(`{"replaced":true}`)); err != nil {
		fmt.Printf("write error: %v\n", err)
	} else {
		fmt.Println("write: ok")
	}
}

// A write that fails (here: the folder is read-only) leaves the earlier file
// as it was and no temporary file behind.
func TestWriteFileReadOnlyFolder(t *testing.T) {
	earlier := session(t, "earlier")
	var dir, target string
	var writeErr string

	if os.Geteuid() == 0 {
		// Root ignores folder permissions, so the write is done by a copy of
		// this test binary running as nobody. Everything it needs is in a
		// folder that nobody can reach: t.TempDir's folders are 0700.
		root, err := os.MkdirTemp("", "aiq-rpc-readonly-*")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(root) })
		require.NoError(t, os.Chmod(root, 0o755))
		bin := copyTestBinary(t, root)
		dir = filepath.Join(root, "sessions")
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.Chmod(dir, 0o755))
		target = filepath.Join(dir, "s.json")
		require.NoError(t, os.WriteFile(target, earlier, 0o644))
		require.NoError(t, os.Chmod(target, 0o644))

		cmd := exec.Command(bin)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), readOnlyTargetEnv+"="+target)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("running the test binary as uid 65534 failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
		}
		report := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if key, value, ok := strings.Cut(sc.Text(), ": "); ok && (key == "read" || key == "write" || key == "write error") {
				report[key] = value
			}
		}
		if report["read"] != "ok" {
			t.Fatalf("the child could not read the earlier file, so it cannot test a read-only folder:\n%s\nstderr:\n%s", out, stderr.String())
		}
		require.NotContains(t, report, "write", "WriteFile succeeded in a folder the child may not write:\n%s", out)
		require.Contains(t, report, "write error", "the child reported nothing:\n%s", out)
		writeErr = report["write error"]
	} else {
		dir = filepath.Join(t.TempDir(), "sessions")
		require.NoError(t, os.Mkdir(dir, 0o700))
		target = filepath.Join(dir, "s.json")
		require.NoError(t, os.WriteFile(target, earlier, 0o644))
		require.NoError(t, os.Chmod(dir, 0o500))
		// Restore, or t.TempDir's cleanup cannot remove the folder.
		t.Cleanup(func() { os.Chmod(dir, 0o700) })

		err := sessionio.WriteFile(target, session(t, "new"))
		require.Error(t, err)
		writeErr = err.Error()
	}

	t.Logf("WriteFile into the read-only folder: %s", writeErr)
	assert.Contains(t, writeErr, target, "the error names the file")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, earlier, got, "the earlier file is intact")
	assert.Empty(t, tempFiles(t, dir))
}

// copyTestBinary copies the running test binary into dir, where another user
// can run it (go test builds it in a folder only its user may enter).
func copyTestBinary(t *testing.T, dir string) string {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	src, err := os.Open(exe)
	require.NoError(t, err)
	defer src.Close()
	bin := filepath.Join(dir, "sessionio.test")
	dst, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
	require.NoError(t, os.Chmod(bin, 0o755))
	return bin
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := filepath.Join(dir, ".session-1.tmp")
	young := filepath.Join(dir, ".session-2.tmp")
	session := filepath.Join(dir, "session_20261122000000.json")
	for _, p := range []string{old, young, session} {
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
	}
	require.NoError(t, os.Chtimes(old, now.Add(-time.Hour), now.Add(-time.Hour)))
	require.NoError(t, os.Chtimes(session, now.Add(-time.Hour), now.Add(-time.Hour)))
	n, err := sessionio.RemoveStaleTemps(dir, 10*time.Minute, now)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, old)
	assert.FileExists(t, young, "a save may be writing it now")
	assert.FileExists(t, session)
	n, err = sessionio.RemoveStaleTemps(filepath.Join(dir, "missing"), time.Minute, now)
	assert.NoError(t, err)
	assert.Zero(t, n)
}
