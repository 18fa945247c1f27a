package sessionio

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLogFull is returned by LogFile.Append when the messages would take the
// file past MaxFileSize: they belong in a new file.
var ErrLogFull = errors.New("the log file is full")

// ErrNotAppendable is returned by OpenLog and LogFile.Append for a file that
// does not end as a log that LogFile wrote (or Encode, without extra keys)
// ends: it is left as it is, and the messages belong in another file.
var ErrNotAppendable = errors.New("the file does not end as a log that aiq-rpc can add to")

// logTail is how a file that Encode wrote ends when raw_messages is its last
// key: an append replaces it with ",\n    ELEMENT...\n  ]\n}\n".
const logTail = "\n  ]\n}\n"

// logTimeLayout writes last_updated at a fixed width, so that an append can
// overwrite it in place.
const logTimeLayout = "2006-01-02T15:04:05.000000000Z"

// logSyncDelay is how long an appended message may wait for the disk: the
// appends of that second share one fsync.
const logSyncDelay = time.Second

// A LogFile is a session file that grows by messages appended at its end,
// such as a log of tool calls: an append writes only the new messages, so
// it costs the same whatever the file holds, and never rewrites what is
// there. Several processes may append to one file at once: each append
// holds an exclusive lock on the file (flock) and writes at the end it
// finds then, so none loses another's messages. An append is written before
// Append returns (a process killed after it loses nothing) and reaches the
// disk within about a second, batched with its neighbours.
//
// The file has no legacy messages list: the CLI reads raw_messages when
// there are any.
type LogFile struct {
	path string

	mu    sync.Mutex
	f     *os.File
	dirty bool
	timer *time.Timer
}

// OpenLog opens the log at path for appending, creating it (mode 0600, its
// folder too) with md and the messages first when there is no file.
func OpenLog(path string, md Metadata, first []Message) (*LogFile, error) {
	// Stat before Open: opening a FIFO blocks until a writer comes.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("open log %s: %w: not a regular file", path, ErrNotAppendable)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		err = createLog(path, md, first)
		if err == nil || errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(path, os.O_RDWR, 0)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%w: not a regular file", ErrNotAppendable)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	return &LogFile{path: path, f: f}, nil
}

// createLog publishes a new log at path, complete, or fails with
// fs.ErrExist when another process was first.
func createLog(path string, md Metadata, first []Message) error {
	md.LastUpdated = md.CreatedAt
	data, err := Encode(&File{Metadata: md, Chat: first, Encoded: make([]EncodedMessage, len(first))})
	if err != nil {
		return err
	}
	data = fixedUpdated(data, md.CreatedAt)
	if !bytes.HasSuffix(data, []byte(logTail)) {
		return fmt.Errorf("%w: a new log with %d messages", ErrNotAppendable, len(first))
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := writeTemp(dir, data, true)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := publishNew(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// fixedUpdated rewrites the last_updated that Encode wrote in data at the
// fixed width of logTimeLayout.
func fixedUpdated(data []byte, t time.Time) []byte {
	start, end, ok := updatedField(data)
	if !ok {
		return data
	}
	out := make([]byte, 0, len(data)+len(logTimeLayout))
	out = append(out, data[:start]...)
	out = t.UTC().AppendFormat(out, logTimeLayout)
	return append(out, data[end:]...)
}

// updatedField finds the value of metadata.last_updated, between its
// quotes, in the head of a file that Encode wrote.
func updatedField(head []byte) (start, end int, ok bool) {
	const key = `"last_updated": "`
	i := bytes.Index(head, []byte(key))
	if i < 0 {
		return 0, 0, false
	}
	start = i + len(key)
	n := bytes.IndexByte(head[start:], '"')
	if n < 0 {
		return 0, 0, false
	}
	return start, start + n, true
}

// Path is the file's path.
func (l *LogFile) Path() string { return l.path }

// Append adds msgs at the end of raw_messages and sets last_updated to
// updated where the file keeps it at a fixed width. Another process's
// appends may come before or after, never in between. It fails with
// ErrLogFull or ErrNotAppendable, writing nothing, when the messages
// belong in another file.
func (l *LogFile) Append(msgs []Message, updated time.Time) error {
	var buf []byte
	for _, m := range msgs {
		data, err := EncodeMessage(m)
		if err != nil {
			return fmt.Errorf("append to log %s: %w", l.path, err)
		}
		buf = append(buf, ",\n    "...)
		buf = append(buf, data...)
	}
	buf = append(buf, logTail...)

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("append to log %s: the log is closed", l.path)
	}
	if err := l.lock(); err != nil {
		return fmt.Errorf("append to log %s: %w", l.path, err)
	}
	defer unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	if err := l.appendLocked(buf, updated); err != nil {
		return fmt.Errorf("append to log %s: %w", l.path, err)
	}
	l.dirty = true
	if l.timer == nil {
		l.timer = time.AfterFunc(logSyncDelay, l.flush)
	}
	return nil
}

// lock takes the file's lock, on the file that path names now: when another
// writer replaced the file (an editor that saved the log as a session), the
// open file is the old one and the appends go to the new.
func (l *LogFile) lock() error {
	for range 3 {
		if err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX); err != nil {
			return err
		}
		open, err := l.f.Stat()
		if err != nil {
			unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
			return err
		}
		now, err := os.Stat(l.path)
		if err == nil && os.SameFile(open, now) {
			return nil
		}
		unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(l.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		l.syncLocked()
		l.f.Close()
		l.f = f
	}
	return errors.New("the file keeps being replaced")
}

// appendLocked writes buf over the tail of the file, with the lock held.
func (l *LogFile) appendLocked(buf []byte, updated time.Time) error {
	info, err := l.f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	tail := make([]byte, len(logTail))
	if size < int64(len(logTail)) {
		return ErrNotAppendable
	}
	if _, err := l.f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return err
	}
	if string(tail) != logTail {
		return ErrNotAppendable
	}
	at := size - int64(len(logTail))
	if at+int64(len(buf)) > MaxFileSize {
		return ErrLogFull
	}
	if _, err := l.f.WriteAt(buf, at); err != nil {
		// A short write (a full disk) would leave a file that is not
		// JSON: put the tail back where it was.
		l.f.Truncate(size)
		l.f.WriteAt([]byte(logTail), at)
		return err
	}
	l.setUpdated(updated)
	return nil
}

// setUpdated overwrites last_updated when the file keeps it at the fixed
// width; a file of another layout keeps its own, which only a listing
// reads.
func (l *LogFile) setUpdated(t time.Time) {
	head := make([]byte, 512)
	n, _ := l.f.ReadAt(head, 0)
	start, end, ok := updatedField(head[:n])
	if !ok || end-start != len(logTimeLayout) {
		return
	}
	l.f.WriteAt(t.UTC().AppendFormat(nil, logTimeLayout), int64(start))
}

// flush makes the appends durable; it runs a second after the first append
// that followed the last flush.
func (l *LogFile) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	l.syncLocked()
}

func (l *LogFile) syncLocked() error {
	if !l.dirty || l.f == nil {
		return nil
	}
	l.dirty = false
	return l.f.Sync()
}

// Close makes the appends durable and closes the file.
func (l *LogFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	err := l.syncLocked()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("close log %s: %w", l.path, err)
	}
	return nil
}
