package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
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
		excess := int(tooLarge.Size) - sessionio.MaxFileSize
		if n := s.dropOldestTurns(excess); n > 0 {
			notes = append(notes, fmt.Sprintf("dropped the %d oldest turn(s) to keep the session file under 10 MiB", n))
			continue
		}
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

// dropOldestTurns drops the oldest turns of both lists, never the last
// one, until about excess bytes are gone, and says how many it dropped.
// Estimating the bytes saves encoding the whole file once per turn.
func (s *Session) dropOldestTurns(excess int) int {
	history := turnStarts(s.History, isUserMessage)
	legacy := turnStarts(s.Legacy, isUserLegacy)
	n, freed := 0, 0
	for n < max(len(history), len(legacy))-1 && freed < excess {
		freed += turnSize(s.History, history, n) + turnSize(s.Legacy, legacy, n)
		n++
	}
	if n > 0 {
		// The lists may hold different numbers of turns (the CLI's /clear
		// empties only one); each keeps at least its last.
		s.History = trimTurns(s.History, isUserMessage, max(len(history)-n, 1))
		s.Legacy = trimTurns(s.Legacy, isUserLegacy, max(len(legacy)-n, 1))
	}
	return n
}

// turnSize is about the number of bytes turn i of list takes in the file.
func turnSize[T any](list []T, starts []int, i int) int {
	if i >= len(starts) {
		return 0
	}
	end := len(list)
	if i+1 < len(starts) {
		end = starts[i+1]
	}
	size := 0
	for _, m := range list[starts[i]:end] {
		data, _ := sessionio.Marshal(m)
		size += len(data)
	}
	return size
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
	// Escapes make a content byte take one to six bytes in the file; cut
	// by the content's own average so that one pass is usually enough.
	encoded, _ := sessionio.Marshal(*largest)
	ratio := float64(len(encoded)) / float64(max(total, 1))
	keep := total - int(math.Ceil(float64(excess)/ratio)) - len(cutMarker) - 64
	if keep <= 0 {
		return "", false
	}
	for keep > 0 && !utf8.RuneStart((*largest)[keep]) {
		keep--
	}
	*largest = (*largest)[:keep] + fmt.Sprintf(cutMarker, total-keep, total)
	return fmt.Sprintf("cut a %d-byte message to %d bytes to keep the session file under 10 MiB", total, keep), true
}

// clone returns a copy that a turn can change while s is still read: the
// lists are clipped, so appending to the copy's never writes into s's.
func (s *Session) clone() *Session {
	c := *s
	c.History = slices.Clip(s.History)
	c.Legacy = slices.Clip(s.Legacy)
	return &c
}
