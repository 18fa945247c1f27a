package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/sessionio"
)

// Session is one conversation: its metadata, the complete history that the
// model sees, and the legacy list that the AIQ CLI shows. A Session is not
// safe for concurrent use; its owner runs one turn at a time.
type Session struct {
	Created time.Time
	Updated time.Time
	// Source is the data source's name in sources.yaml; "" is no database.
	Source       string
	DatabaseType string
	// SystemPrompt is the prompt of the latest turn, saved as the file's
	// first raw message. It is never part of History.
	SystemPrompt string
	// History is the complete conversation without system messages: user,
	// assistant (with tool calls), tool results, in order.
	History []Message
	// Legacy is the CLI's list: one user and one assistant entry per turn.
	Legacy []sessionio.LegacyMessage

	metaExtra map[string]json.RawMessage
	fileExtra map[string]json.RawMessage
}

// NewSession returns an empty session on source ("" for none).
func NewSession(source, databaseType string, now time.Time) *Session {
	return &Session{Created: now, Updated: now, Source: source, DatabaseType: databaseType}
}

// Load reads the session file at path. Elements that cannot be used are
// skipped and described in the warnings; only a file that cannot be read as
// a session at all is an error.
func Load(path string) (*Session, []string, error) {
	f, warnings, err := sessionio.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	s, more := FromFile(f)
	return s, append(warnings, more...), nil
}

// FromFile makes a session of a decoded file. It prefers the complete
// messages; when they hold nothing usable, the legacy list becomes the
// history.
func FromFile(f *sessionio.File) (*Session, []string) {
	s := &Session{
		Created:      f.Metadata.CreatedAt,
		Updated:      f.Metadata.LastUpdated,
		Source:       f.Metadata.DataSource,
		DatabaseType: f.Metadata.DatabaseType,
		Legacy:       f.Messages,
		metaExtra:    f.Metadata.Extra,
		fileExtra:    f.Extra,
	}
	history, system, warnings := decodeHistory(f.RawMessages)
	s.History, s.SystemPrompt = history, system
	if len(history) == 0 && len(f.Messages) > 0 {
		s.History = historyFromLegacy(f.Messages)
	}
	if s.Created.IsZero() {
		s.Created = s.Updated
	}
	return s, warnings
}

// File returns the session as a session file: the system prompt first,
// then the history.
func (s *Session) File() *sessionio.File {
	f := &sessionio.File{
		Metadata: sessionio.Metadata{
			CreatedAt:    s.Created,
			LastUpdated:  s.Updated,
			DataSource:   s.Source,
			DatabaseType: s.DatabaseType,
			Extra:        s.metaExtra,
		},
		Messages: s.Legacy,
		Extra:    s.fileExtra,
	}
	if len(s.History) > 0 {
		f.RawMessages = make([]json.RawMessage, 0, len(s.History)+1)
		system, _ := sessionio.Marshal(Message{Role: RoleSystem, Content: s.SystemPrompt})
		f.RawMessages = append(f.RawMessages, system)
		for _, m := range s.History {
			raw, err := sessionio.Marshal(m)
			if err != nil {
				// Only an Extra value that is not JSON can fail, and only
				// when set by hand; losing that key beats losing the turn.
				m.Extra = nil
				raw, _ = sessionio.Marshal(m)
			}
			f.RawMessages = append(f.RawMessages, raw)
		}
	}
	return f
}

// Encode renders the session as a session file of at most
// sessionio.MaxFileSize. To fit, it drops the oldest turns from the session
// itself, down to the last one, and then cuts the largest message content
// with a visible marker. The notes say what it dropped.
func (s *Session) Encode() (data []byte, notes []string, err error) {
	if s.Created.IsZero() {
		s.Created = time.Now()
	}
	for {
		data, err = sessionio.Encode(s.File())
		var tooLarge *sessionio.SizeError
		if !errors.As(err, &tooLarge) {
			return data, notes, err
		}
		if s.dropOldestTurn() {
			notes = append(notes, "dropped the oldest turn to keep the session file under 10 MiB")
			continue
		}
		excess := int(tooLarge.Size) - sessionio.MaxFileSize
		note, ok := s.cutLargestContent(excess)
		if !ok {
			return nil, notes, err
		}
		notes = append(notes, note)
	}
}

// Turns is the number of turns in the history.
func (s *Session) Turns() int {
	return max(len(turnStarts(s.History, isUserMessage)), len(turnStarts(s.Legacy, isUserLegacy)))
}

// Trim keeps the last limit turns in both lists.
func (s *Session) Trim(limit int) {
	s.History = trimTurns(s.History, isUserMessage, limit)
	s.Legacy = trimTurns(s.Legacy, isUserLegacy, limit)
}

// Clear empties both lists, which the CLI's own /clear forgets to do.
func (s *Session) Clear(now time.Time) {
	s.History, s.Legacy = nil, nil
	s.Updated = now
}

// dropOldestTurn removes the first turn of each list that has more than one.
func (s *Session) dropOldestTurn() bool {
	history := len(turnStarts(s.History, isUserMessage))
	legacy := len(turnStarts(s.Legacy, isUserLegacy))
	if history <= 1 && legacy <= 1 {
		return false
	}
	if history > 1 {
		s.History = trimTurns(s.History, isUserMessage, history-1)
	}
	if legacy > 1 {
		s.Legacy = trimTurns(s.Legacy, isUserLegacy, legacy-1)
	}
	return true
}

// cutMarker leaves a visible trace of a cut in the content, for the user
// and for the model.
const cutMarker = "\n[aiq-rpc: cut %d of %d bytes here to keep the session file under 10 MiB]"

// cutLargestContent shortens the largest content of the session, in the
// history or the legacy list, by at least excess bytes.
func (s *Session) cutLargestContent(excess int) (string, bool) {
	var largest *string
	for i := range s.History {
		if largest == nil || len(s.History[i].Content) > len(*largest) {
			largest = &s.History[i].Content
		}
	}
	for i := range s.Legacy {
		if largest == nil || len(s.Legacy[i].Content) > len(*largest) {
			largest = &s.Legacy[i].Content
		}
	}
	if largest == nil {
		return "", false
	}
	total := len(*largest)
	// Each content byte takes at least one byte in the file, so cutting
	// excess bytes plus the marker's own length is enough, or close.
	keep := total - excess - len(cutMarker) - 32
	if keep <= 0 || total < 2*len(cutMarker) {
		return "", false
	}
	for keep > 0 && !utf8.RuneStart((*largest)[keep]) {
		keep--
	}
	*largest = (*largest)[:keep] + fmt.Sprintf(cutMarker, total-keep, total)
	return fmt.Sprintf("cut a %d-byte message to %d bytes to keep the session file under 10 MiB", total, keep), true
}
