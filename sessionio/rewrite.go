package sessionio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"math/rand/v2"
	"path/filepath"
	"syscall"
)

// A Rewriter replaces one file again and again (a session's file after
// each turn, its seen file), each time as WriteFile does: the new content
// goes to a hidden file that is then renamed over the old one, so a
// reader sees the old content or the new, never a mix, and a failed write
// leaves the old file as it was.
//
// What it adds is where the new content goes. WriteFile writes each
// version into a new file, and the kernel finds fresh pages (or disk
// blocks) for all of it, then frees the old version's: for a 1.2 MB
// session in /dev/shm that is 0.65 ms a save against 0.16 ms for writing
// over pages already held, and 2.0 against 0.9 ms on an ext4 disk. A
// Rewriter keeps the version it replaces under a hidden name, its spare,
// and writes the next version over it.
//
// The spare is named as a temporary file of this process
// (.session-PID-*.spare), so that RemoveStaleTemps removes it once the
// process is gone; Close removes it before then. A version is taken as
// the spare only when it is a regular file of this user with no other
// link, so that writing over it changes no file anyone else can see. The
// zero value is ready; a Rewriter is not safe for concurrent use.
type Rewriter struct {
	spare string // the hidden file holding the version before the last; "" when none
}

// Write replaces the file at path with data, as WriteFile does.
func (r *Rewriter) Write(path string, data []byte) error {
	if err := checkSize(data); err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	path, err := followLinks(path)
	if err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	tmp := r.takeSpare(dir, data)
	if tmp == "" {
		if tmp, err = writeTemp(dir, data, true); err != nil {
			return fmt.Errorf("save session %s: %w", path, err)
		}
	}
	next := keepAsSpare(path)
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		if next != "" {
			os.Remove(next)
		}
		return fmt.Errorf("save session %s: %w", path, err)
	}
	r.spare = next
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	return nil
}

// Close removes the spare. The Rewriter can be used again.
func (r *Rewriter) Close() error {
	spare := r.spare
	r.spare = ""
	if spare == "" {
		return nil
	}
	if err := os.Remove(spare); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", spare, err)
	}
	return nil
}

// takeSpare writes data over the spare, when there is one in dir, and
// returns its name; "" when there is none or the write failed (the spare
// is then removed, and the caller writes a new file).
func (r *Rewriter) takeSpare(dir string, data []byte) string {
	spare := r.spare
	r.spare = ""
	if spare == "" {
		return ""
	}
	if filepath.Dir(spare) != dir || overwrite(spare, data) != nil {
		os.Remove(spare)
		return ""
	}
	return spare
}

// overwrite makes the file at path hold data, flushed to disk, writing
// over the pages it has rather than truncating it first.
func overwrite(path string, data []byte) error {
	// O_NOFOLLOW: another start's clean-up may have removed the spare and
	// something else taken its name.
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// keepAsSpare gives the file at path a second, hidden name, so that it
// outlives the rename about to replace it, and returns that name; "" when
// the file is not one to write over (missing, not regular, another user's,
// linked elsewhere) or the file system has no hard links.
func keepAsSpare(path string) string {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink != 1 || int(st.Uid) != os.Geteuid() {
		return ""
	}
	name, err := linkSpare(path, filepath.Dir(path))
	if err != nil {
		return ""
	}
	return name
}

// linkSpare links the file at path to a new spare name in dir and returns
// that name.
func linkSpare(path, dir string) (string, error) {
	var err error
	for range 10 {
		name := filepath.Join(dir, fmt.Sprintf(".session-%d-%016x%s", os.Getpid(), rand.Uint64(), spareSuffix))
		if err = os.Link(path, name); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", err
}

// spareSuffix ends the name of a Rewriter's spare.
const spareSuffix = ".spare"
