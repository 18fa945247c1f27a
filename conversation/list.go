package conversation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Listed is a saved session as a list shows it.
type Listed struct {
	Path          string    `json:"path"`
	Created       time.Time `json:"created,omitzero"`
	Updated       time.Time `json:"updated,omitzero"`
	Source        string    `json:"source"`
	DatabaseType  string    `json:"databaseType"`
	Turns         int       `json:"turns"`
	FirstQuestion string    `json:"firstQuestion"`
	// Error is why the file could not be read; the other fields are then
	// empty but for the path and the file's time.
	Error string `json:"error,omitempty"`
	// Latest marks the most recently updated session of its data source
	// (no database being a source of its own), which an editor reopens on
	// start.
	Latest bool `json:"latest,omitempty"`
	// CallLog marks a log of an MCP host's calls (Workspace.Call), which
	// is never latest: it is not a conversation an editor had.
	CallLog bool `json:"callLog,omitempty"`
}

// maxQuestionShown bounds the first question in a list.
const maxQuestionShown = 200

// ListSessions lists the session files in dir, newest first. A file that
// cannot be read is listed with its error; a missing dir is an empty list.
func ListSessions(dir string) ([]Listed, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	list := []Listed{}
	for _, path := range paths {
		list = append(list, listOne(path))
	}
	slices.SortStableFunc(list, func(a, b Listed) int { return b.Updated.Compare(a.Updated) })
	markLatest(list)
	return list, nil
}

// LatestSession returns the session ListSessions marks latest for source
// ("" for sessions without a database), or false when there is none. It
// reads the files newest first by modification time and stops at the
// first file that cannot hold a newer session, so that an editor that
// reopens the last conversation on start reads one or two files, not the
// whole folder: a session's updated time is never later than the write
// of its file.
func LatestSession(dir, source string) (Listed, bool, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return Listed{}, false, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	type file struct {
		path    string
		modTime time.Time
	}
	files := make([]file, 0, len(paths))
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			files = append(files, file{p, info.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return b.modTime.Compare(a.modTime) })
	var best Listed
	found := false
	for _, f := range files {
		if found && f.modTime.Before(best.Updated) {
			break
		}
		l := listOne(f.path)
		if l.Error == "" && !l.CallLog && l.Source == source && (!found || l.Updated.After(best.Updated)) {
			best, found = l, true
		}
	}
	best.Latest = found
	return best, found, nil
}

// markLatest marks the first session of each source in list, which is
// newest first; a file that could not be read has no source to mark, and
// a log of calls is not a conversation.
func markLatest(list []Listed) {
	seen := map[string]bool{}
	for i := range list {
		if l := &list[i]; l.Error == "" && !l.CallLog && !seen[l.Source] {
			seen[l.Source] = true
			l.Latest = true
		}
	}
}

func listOne(path string) Listed {
	s, _, err := Load(path)
	if err != nil {
		l := Listed{Path: path, Error: FileProblem(err)}
		if info, statErr := os.Stat(path); statErr == nil {
			l.Updated = info.ModTime().UTC()
		}
		return l
	}
	l := Listed{Path: path, Created: s.Created, Updated: s.Updated, Source: s.Source, DatabaseType: s.DatabaseType, Turns: s.Turns(),
		CallLog: strings.HasPrefix(s.SystemPrompt, callLogPrompt)}
	for _, m := range s.Legacy {
		if m.Role == string(RoleUser) {
			l.FirstQuestion = truncate(strings.TrimSpace(m.Content), maxQuestionShown)
			break
		}
	}
	if l.FirstQuestion == "" {
		if i := slices.IndexFunc(s.History, isUserMessage); i >= 0 {
			l.FirstQuestion = truncate(strings.TrimSpace(s.History[i].Content), maxQuestionShown)
		}
	}
	return l
}
