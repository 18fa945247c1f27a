package conversation

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
)

// Saved says where a session was saved.
type Saved struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Hint      string `json:"hint"`
	// Notes tell what was shortened to fit the file size limit.
	Notes []string `json:"notes,omitempty"`
}

// ContinueHint is the sentence that tells the user how to go on in the CLI.
func ContinueHint(path string) string {
	return fmt.Sprintf("Run 'aiq -s %s' to continue.", path)
}

// Save writes a session to path; "" means its own file, which is created
// in the home's sessions folder on the first save. A session saved to a
// new path keeps saving there. The folder of path must exist: a mistyped
// path creates nothing. A path that is a folder, or in a missing one, is an
// error wrapping ErrInvalidRequest.
func (w *Workspace) Save(ctx context.Context, id, path string) (Saved, error) {
	o, err := w.get(id)
	if err != nil {
		return Saved{}, err
	}
	if path != "" {
		if path, err = absPath(path); err != nil {
			return Saved{}, err
		}
		if err := checkSavePath(path); err != nil {
			return Saved{}, fmt.Errorf("save session %s: %w: %w", id, ErrInvalidRequest, err)
		}
	}
	return w.save(o, path)
}

// checkSavePath says what is wrong with saving to path, if anything.
func checkSavePath(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("%s is a folder; give the path of a file, such as %s", path, filepath.Join(path, "session.json"))
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the folder %s does not exist; create it first, or save somewhere else", dir)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

func (w *Workspace) save(o *openSession, path string) (Saved, error) {
	o.saveMu.Lock()
	defer o.saveMu.Unlock()
	o.mu.Lock()
	enc, err := o.s.EncodeTo(w.fileBuf.take())
	if path == "" {
		path = o.path
	}
	o.mu.Unlock()
	data, notes := enc.Data, enc.Notes
	w.fileBuf.give(enc.Freed)
	if err != nil {
		return Saved{}, fmt.Errorf("save session %s: %w", o.id, err)
	}
	if path == "" {
		path, err = sessionio.CreateFile(w.cfg.Home.SessionsDir(), data, w.cfg.Now())
	} else {
		err = sessionio.WriteFile(path, data)
	}
	if enc.DataFree {
		w.fileBuf.give(data) // written out, and the session kept copies
	}
	if err != nil {
		return Saved{}, err
	}
	o.mu.Lock()
	o.path = path
	o.dirty = false
	o.mu.Unlock()
	return Saved{SessionID: o.id, Path: path, Hint: ContinueHint(path), Notes: notes}, nil
}

func absPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("save session %s: %w", path, err)
	}
	return abs, nil
}

// fileBuffer keeps the buffer of a session file that was written out, for
// the next save of any session to encode its file in: a save after each
// turn of a long conversation would otherwise allocate a megabyte a turn,
// and the collections that follow cost the turn more than the copy. Only
// a buffer of at most maxFileBuffer is kept, so that a workspace holds no
// more for it than a long conversation's file.
type fileBuffer struct {
	mu   sync.Mutex
	free []byte
}

const maxFileBuffer = 4 << 20

// take returns the kept buffer, or nil; it is the caller's until given back.
func (b *fileBuffer) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf := b.free
	b.free = nil
	return buf
}

// give keeps buf, which nothing refers to any more, for the next take.
func (b *fileBuffer) give(buf []byte) {
	if cap(buf) > maxFileBuffer {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if cap(buf) > cap(b.free) {
		b.free = buf
	}
}

// autosave saves a session after a change, to its own file.
func (w *Workspace) autosave(o *openSession) (Saved, error) {
	return w.save(o, "")
}

// CloseSession saves a session with unsaved changes and forgets it.
func (w *Workspace) CloseSession(ctx context.Context, id string) (Saved, error) {
	o, err := w.get(id)
	if err != nil {
		return Saved{}, err
	}
	if err := o.claim("close session"); err != nil {
		return Saved{}, err
	}
	defer o.release()
	saved, err := w.saveIfDirty(o)
	if err != nil {
		return Saved{}, err
	}
	w.mu.Lock()
	delete(w.sessions, id)
	w.mu.Unlock()
	o.mu.Lock()
	large := o.s.textSize() >= largeSession
	box := o.box
	o.box = nil
	o.mu.Unlock()
	endToolbox(box)
	if large {
		w.memory.release()
	}
	return saved, nil
}

func (w *Workspace) saveIfDirty(o *openSession) (Saved, error) {
	o.mu.Lock()
	dirty, path := o.dirty, o.path
	o.mu.Unlock()
	if !dirty {
		return Saved{SessionID: o.id, Path: path, Hint: hintFor(path)}, nil
	}
	return w.autosave(o)
}

func hintFor(path string) string {
	if path == "" {
		return ""
	}
	return ContinueHint(path)
}

// SaveAll saves every session with unsaved changes, as a client leaves. It
// goes on past a failure and returns the sessions saved and the errors.
func (w *Workspace) SaveAll(ctx context.Context) ([]Saved, []error) {
	w.mu.Lock()
	open := make([]*openSession, 0, len(w.sessions))
	for _, o := range w.sessions {
		open = append(open, o)
	}
	w.mu.Unlock()
	slices.SortFunc(open, func(a, b *openSession) int { return strings.Compare(a.id, b.id) })
	saved := []Saved{}
	var errs []error
	for _, o := range open {
		o.mu.Lock()
		dirty := o.dirty
		o.mu.Unlock()
		if !dirty {
			continue
		}
		s, err := w.autosave(o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		saved = append(saved, s)
	}
	return saved, errs
}

// Clear empties a session's history and saves it.
func (w *Workspace) Clear(ctx context.Context, id string) (Saved, error) {
	o, err := w.get(id)
	if err != nil {
		return Saved{}, err
	}
	if err := o.claim("clear session"); err != nil {
		return Saved{}, err
	}
	defer o.release()
	o.mu.Lock()
	large := o.s.textSize() >= largeSession
	o.s.Clear(w.cfg.Now())
	o.dirty = true
	o.mu.Unlock()
	saved, err := w.autosave(o)
	if large {
		// The save dropped the bytes it kept of the old messages.
		w.memory.release()
	}
	return saved, err
}

// HistoryEntry is one message of the legacy list: what the user asked and
// what they were answered. A message loaded from a file that gave it no
// timestamp has none.
type HistoryEntry struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp,omitzero"`
}

// History is a session's conversation.
type History struct {
	SessionID string         `json:"sessionId"`
	Turns     []HistoryEntry `json:"turns,omitzero"`
	// Messages are the complete messages, with tool calls and results;
	// only when asked for.
	Messages []Message `json:"messages,omitzero"`
}

// History returns a session's turns, or with full its complete messages.
func (w *Workspace) History(ctx context.Context, id string, full bool) (History, error) {
	o, err := w.get(id)
	if err != nil {
		return History{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	h := History{SessionID: id}
	if full {
		h.Messages = slices.Clone(nonNil(o.s.History))
		return h, nil
	}
	h.Turns = []HistoryEntry{}
	for _, m := range o.s.Legacy {
		h.Turns = append(h.Turns, HistoryEntry{Role: m.Role, Content: m.Content, Timestamp: m.Timestamp})
	}
	return h, nil
}
