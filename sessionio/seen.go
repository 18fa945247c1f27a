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
	if len(results) == 0 {
		return nil, RemoveSeen(session)
	}
	results = append([]SeenResult(nil), results...)
	// Each result's rows are measured once; the file is encoded once more
	// after the oldest rows are dropped.
	data, err := encodeSeen(results)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", SeenPath(session), err)
	}
	size := len(data)
	for i := 0; size > MaxSeenSize && i < len(results); i++ {
		if results[i].Rows == nil {
			continue
		}
		rows, err := marshalRows(results[i].Rows)
		if err != nil {
			return nil, fmt.Errorf("save %s: %w", SeenPath(session), err)
		}
		// "rows":[...] becomes "rows":null,"rowsDropped":true
		size += len(`null,"rowsDropped":true`) - len(rows)
		results[i].Rows = nil
		results[i].RowsDropped = true
	}
	if size != len(data) {
		if data, err = encodeSeen(results); err != nil {
			return nil, fmt.Errorf("save %s: %w", SeenPath(session), err)
		}
	}
	if len(data) > MaxSeenSize {
		// Only SQL and column names are left: too many results to keep.
		return nil, fmt.Errorf("save %s: %w", SeenPath(session), &SizeError{Size: int64(len(data))})
	}
	if err := writeFile(SeenPath(session), data, true); err != nil {
		return nil, err
	}
	return results, nil
}

// marshalRows is rows as encodeSeen writes them, without its newline.
func marshalRows(rows [][]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rows); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func encodeSeen(results []SeenResult) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(seenFile{Version: seenVersion, Results: results}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
