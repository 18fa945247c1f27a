package sessionio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The seen file keeps, beside a session file, what the user saw of its
// results: the rows the editor was sent, real values of masked columns
// included, and each result's row count. The session file is what the CLI
// and the model read and never holds a masked value; the seen file is read
// by aiq-rpc only, to give an editor that opens the conversation again the
// results as they were shown, and never goes to a model.
//
// It is named after its session with SeenSuffix, session_X.json.seen: the
// AIQ CLI never scans the sessions folder and aiq-rpc lists *.json only,
// so neither takes it for a session.

// SeenSuffix follows the session file's name in its seen file's.
const SeenSuffix = ".seen"

// MaxSeenSize bounds a seen file. Past it, the oldest results lose their
// rows first; their counts stay.
const MaxSeenSize = 2 << 20

// seenVersion is the seen file's format.
const seenVersion = 1

// SeenResult is one result as the user saw it.
type SeenResult struct {
	// CallID is the tool call that ran the statement, and SQL its
	// statement: both must match the session's for the result to be
	// shown again.
	CallID  string   `json:"callId"`
	SQL     string   `json:"sql"`
	Columns []string `json:"columns"`
	// ColumnTypes are the engine's type names of the columns, which say
	// which are numbers and dates.
	ColumnTypes []string `json:"columnTypes,omitempty"`
	// Rows are the rows the editor was sent, nil when they were dropped
	// to keep the file to MaxSeenSize (RowsDropped).
	Rows        [][]any `json:"rows"`
	RowCount    int64   `json:"rowCount"`
	Truncated   bool    `json:"truncated,omitempty"`
	RowsDropped bool    `json:"rowsDropped,omitempty"`
}

type seenFile struct {
	Version int          `json:"version"`
	Results []SeenResult `json:"results"`
}

// SeenPath is the seen file of the session file at path.
func SeenPath(session string) string { return session + SeenSuffix }

// ReadSeen reads the seen file of the session file at path, oldest result
// first; a missing file is no results. Numbers come back as json.Number,
// as they were written.
func ReadSeen(session string) ([]SeenResult, error) {
	path := SeenPath(session)
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !info.Mode().IsRegular() || info.Size() > 2*MaxSeenSize {
		return nil, fmt.Errorf("read %s: %w: not a seen file aiq-rpc wrote", path, ErrInvalid)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var f seenFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read %s: %w: %w", path, ErrInvalid, err)
	}
	if f.Version != seenVersion {
		return nil, fmt.Errorf("read %s: %w: version %d, not %d", path, ErrInvalid, f.Version, seenVersion)
	}
	return f.Results, nil
}

// WriteSeen replaces the seen file of the session file at path with
// results, oldest first, atomically and with mode 0600; no results
// removes it. When the file would pass MaxSeenSize, the oldest results
// lose their rows until it fits. It returns the results as written.
func WriteSeen(session string, results []SeenResult) ([]SeenResult, error) {
	var w SeenWriter
	return w.Write(session, results)
}

// A SeenWriter writes one session's seen file again and again, as
// WriteSeen does, encoding only the results it has not written before: a
// turn adds a result or two to a file that holds every earlier one, and
// encoding all of their rows anew (with reflection, each value an any)
// cost more than the rest of the turn at 200 turns. The results it gets
// must not be changed in place once written; a result given with other
// rows, columns or fields (another slice, another count) is encoded
// again. The zero value is ready; a SeenWriter is not safe for concurrent
// use.
type SeenWriter struct {
	// written holds, by call id, the bytes of the results the last Write
	// wrote, each with the result it encodes.
	written map[string]seenElement
	buf     []byte // the file as last written, for the next to write into
}

type seenElement struct {
	result SeenResult
	data   []byte
}

// Write is WriteSeen, reusing the bytes of the results the last Write
// wrote that are given again unchanged.
func (w *SeenWriter) Write(session string, results []SeenResult) ([]SeenResult, error) {
	if len(results) == 0 {
		w.written, w.buf = nil, nil
		return nil, RemoveSeen(session)
	}
	results = append([]SeenResult(nil), results...)
	elements := make([][]byte, len(results))
	size := len(seenHead) + len(seenTail) + len(results) - 1
	for i := range results {
		data, err := w.element(results[i])
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", SeenPath(session), err)
		}
		elements[i] = data
		size += len(data)
	}
	for i := 0; size > MaxSeenSize && i < len(results); i++ {
		if results[i].Rows == nil {
			continue
		}
		results[i].Rows = nil
		results[i].RowsDropped = true
		data, err := w.element(results[i])
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", SeenPath(session), err)
		}
		size += len(data) - len(elements[i])
		elements[i] = data
	}
	if size > MaxSeenSize {
		// Only SQL and column names are left: too many results to keep.
		w.written = nil
		return nil, fmt.Errorf("save %s: %w", SeenPath(session), &SizeError{Size: int64(size)})
	}
	// The buffer of the last write, when it is large enough: the elements
	// are apart from it, and it is written out before Write returns.
	data := w.buf[:0]
	if cap(data) < size {
		data = make([]byte, 0, size+size/8)
	}
	data = append(data, seenHead...)
	written := make(map[string]seenElement, len(results))
	for i, e := range elements {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, e...)
		written[results[i].CallID] = seenElement{result: results[i], data: e}
	}
	data = append(data, seenTail...)
	w.buf = data
	if err := writeFile(SeenPath(session), data, true); err != nil {
		w.written = nil
		return nil, err
	}
	w.written = written
	return results, nil
}

// The seen file is {"version":1,"results":[...]} and a newline, as
// json.Encoder writes a seenFile of seenVersion.
const (
	seenHead = `{"version":1,"results":[`
	seenTail = "]}\n"
)

// element is r as the seen file holds it: the bytes written before for the
// same result, else its encoding.
func (w *SeenWriter) element(r SeenResult) ([]byte, error) {
	if e, ok := w.written[r.CallID]; ok && sameSeen(e.result, r) {
		return e.data, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// sameSeen reports whether a and b encode alike: the same fields, and the
// same slices (results are not changed in place).
func sameSeen(a, b SeenResult) bool {
	return a.CallID == b.CallID && a.SQL == b.SQL && a.RowCount == b.RowCount && a.Truncated == b.Truncated &&
		a.RowsDropped == b.RowsDropped && sameSlice(a.Columns, b.Columns) && sameSlice(a.ColumnTypes, b.ColumnTypes) &&
		sameSlice(a.Rows, b.Rows)
}

// sameSlice reports whether a and b are the same slice: nil or not alike,
// the same length and the same first element.
func sameSlice[T any](a, b []T) bool {
	return (a == nil) == (b == nil) && len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// RemoveSeen removes the seen file of the session file at path, if any.
func RemoveSeen(session string) error {
	if err := os.Remove(SeenPath(session)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", SeenPath(session), err)
	}
	return nil
}

// RemoveOrphanSeen removes the seen files in dir whose session file is
// gone, as when the user deleted a session. It returns how many it
// removed.
func RemoveOrphanSeen(dir string) (int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+SeenSuffix))
	if err != nil {
		return 0, fmt.Errorf("remove seen files in %s: %w", dir, err)
	}
	removed := 0
	var errs []error
	for _, path := range paths {
		session := strings.TrimSuffix(path, SeenSuffix)
		if _, err := os.Lstat(session); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}
