package sessionio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ReadFile reads and decodes the session file at path. A file over
// MaxReadSize is refused from its size, before it is read.
func ReadFile(path string) (*File, []string, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load session %s: %w", path, err)
	}
	f, warnings, err := Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("load session %s: %w", path, err)
	}
	return f, warnings, nil
}

func readLimited(path string) ([]byte, error) {
	// Stat before Open: opening a FIFO blocks until a writer comes.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	switch {
	case info.IsDir():
		return nil, fmt.Errorf("%w: this is a folder, not a session file", ErrInvalid)
	case !info.Mode().IsRegular():
		// A FIFO or a device could block or never end.
		return nil, fmt.Errorf("%w: not a regular file", ErrInvalid)
	case info.Size() > MaxReadSize:
		return nil, &SizeError{Size: info.Size(), Reading: true}
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	// The file may grow between Stat and read; never hold more than the
	// ceiling. Sized from Stat, the buffer is allocated once.
	data := make([]byte, 0, info.Size()+1)
	for {
		n, err := file.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) > MaxReadSize {
			return nil, fmt.Errorf("%w: the file grew past the %s that aiq-rpc opens while it was read", ErrTooLarge, byteSize(MaxReadSize))
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	return data, nil
}

// WriteFile atomically replaces the file at path with data: readers see
// either the old or the new content, never a mix, and a failed write leaves
// the old file as it was. The file gets mode 0600. The folder must exist.
func WriteFile(path string, data []byte) error {
	return writeFile(path, data, true)
}

// writeFile is WriteFile; durable says whether to wait for the disk, which
// only a benchmark that reports the wait on its own line leaves out.
func writeFile(path string, data []byte, durable bool) error {
	if err := checkSize(data); err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	path, err := followLinks(path)
	if err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, data, durable)
	if err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save session %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("save session %s: %w", path, err)
	}
	return nil
}

// followLinks returns the file that path names through symbolic links, even
// one that does not exist yet, so that a save writes through a link rather
// than replace it.
func followLinks(path string) (string, error) {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path, err
		}
		if !filepath.IsAbs(target) {
			// Relative to the folder the link is really in: "../x" from a
			// folder reached through a link is not where the string says.
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				dir = filepath.Dir(path)
			}
			target = filepath.Join(dir, target)
		}
		path = target
	}
	return path, errors.New("too many levels of symbolic links")
}

// CreateFile writes data to a new file in dir named as the CLI names them,
// session_YYYYMMDDHHMMSS.json (UTC). When that name is taken it adds a
// suffix (session_..._2.json) and never replaces an existing file. It
// returns the path written.
func CreateFile(dir string, data []byte, now time.Time) (string, error) {
	if err := checkSize(data); err != nil {
		return "", fmt.Errorf("save new session in %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("save new session in %s: %w", dir, err)
	}
	tmp, err := writeTemp(dir, data, true)
	if err != nil {
		return "", fmt.Errorf("save new session in %s: %w", dir, err)
	}
	defer os.Remove(tmp)
	stamp := now.UTC().Format("20060102150405")
	for n := 1; n <= 1000; n++ {
		name := "session_" + stamp + ".json"
		if n > 1 {
			name = fmt.Sprintf("session_%s_%d.json", stamp, n)
		}
		path := filepath.Join(dir, name)
		err := publishNew(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save new session %s: %w", path, err)
		}
		if err := syncDir(dir); err != nil {
			return "", fmt.Errorf("save new session %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("save new session in %s: 1000 files for second %s already exist", dir, stamp)
}

// publishNew gives the complete file tmp the name path, failing with
// fs.ErrExist when path exists. A hard link does that in one step. Where the
// file system has no hard links, the name is claimed with an exclusive
// create and then replaced by the complete file; a reader may see the empty
// claim for that moment, which beats overwriting another session.
func publishNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.EOPNOTSUPP) {
		return err
	}
	claim, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	claim.Close()
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

func checkSize(data []byte) error {
	if len(data) > MaxFileSize {
		return &SizeError{Size: int64(len(data))}
	}
	return nil
}

// writeTemp writes data to a new hidden file in dir and flushes it to disk,
// so that a later rename or link can only ever expose complete content.
func writeTemp(dir string, data []byte, durable bool) (string, error) {
	// The name holds the process's id, so that the next start can tell
	// the file of a save that was killed from one that is running now.
	f, err := os.CreateTemp(dir, ".session-"+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes a rename or link in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	// Some file systems cannot sync a folder; the rename itself is done.
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return err
	}
	return nil
}

// RemoveStaleTemps removes the temporary files that saves in dir left
// behind when their process was killed: those whose name says which process
// wrote them, once that process is gone, and any older than age (a younger
// one may belong to a save that is running now, in this process or
// another whose id was taken again). It returns how many it removed.
func RemoveStaleTemps(dir string, age time.Duration, now time.Time) (int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, ".session-*.tmp"))
	if err != nil {
		return 0, fmt.Errorf("remove stale temporary files in %s: %w", dir, err)
	}
	removed := 0
	var errs []error
	for _, path := range paths {
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if now.Sub(info.ModTime()) < age && !writerGone(filepath.Base(path)) {
			continue
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("remove stale temporary files in %s: %w", dir, errors.Join(errs...))
	}
	return removed, nil
}

// writerGone reports whether the temporary file name, .session-PID-*.tmp,
// was written by a process that no longer runs.
func writerGone(name string) bool {
	rest, ok := strings.CutPrefix(name, ".session-")
	if !ok {
		return false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
