package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
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
	// saved is what the last save wrote of each message, so that the next
	// writes the messages it already wrote by copying their bytes;
	// savedFile is the file a save wrote that they are bytes of, nil when
	// they are copies or bytes of a file read (which is never handed on).
	saved     *savedMessages
	savedFile []byte
	// fences keeps the fence of each tool result the model was sent; a
	// clone shares it, so the turns of one session keep their fences.
	fences *fences
}

// NewSession returns an empty session on source ("" for none).
func NewSession(source, databaseType string, now time.Time) *Session {
	return &Session{Created: now, Updated: now, Source: source, DatabaseType: databaseType, fences: newFences()}
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
	warnings = append(warnings, more...)
	if f.Size > sessionio.MaxFileSize {
		warnings = append(warnings, s.fitLoaded(f.Size))
	}
	return s, warnings, nil
}

// fitLoaded fits a session read from a file over sessionio.MaxFileSize
// (the CLI does not keep to that limit) into the limit at once, by what
// the next save would drop anyway, so that the user is told before the
// file is ever written smaller. It returns that warning. The file itself
// is not touched.
func (s *Session) fitLoaded(size int64) string {
	_, dropped, cuts, err := s.encodeToFit(nil)
	what := fmt.Sprintf("the file is %.1f MiB, over the %d MiB that aiq-rpc writes", float64(size)/(1<<20), sessionio.MaxFileSize>>20)
	switch {
	case err != nil:
		return fmt.Sprintf("%s, and it cannot be made to fit: %v", what, err)
	case dropped == 0 && len(cuts) == 0:
		return what + "; it fits without losing anything when it is saved"
	}
	var lost []string
	if dropped > 0 {
		lost = append(lost, fmt.Sprintf("its %d oldest turn(s) are dropped", dropped))
	}
	lost = append(lost, cuts...)
	return fmt.Sprintf("%s: to fit, %s; the file keeps them until the session is saved", what, strings.Join(lost, ", and "))
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
		fences:       newFences(),
	}
	history, at, system, warnings := decodeHistory(f)
	s.History, s.SystemPrompt = history, system
	if len(history) == 0 && len(f.Messages) > 0 {
		s.History = historyFromLegacy(f.Messages)
	} else {
		s.saved = savedInFile(f, history, at, system)
		shareTexts(s.History, s.Legacy)
	}
	if s.Created.IsZero() {
		s.Created = s.Updated
	}
	return s, warnings
}

// File returns the session as a session file: the system prompt first,
// then the history.
func (s *Session) File() *sessionio.File {
	f := s.file()
	if len(s.History) > 0 {
		f.RawMessages = make([]json.RawMessage, 0, len(s.History)+1)
		system, _ := sessionio.Marshal(Message{Role: RoleSystem, Content: s.SystemPrompt})
		f.RawMessages = append(f.RawMessages, system)
		for _, m := range s.History {
			raw, err := sessionio.Marshal(m)
			if err != nil {
				// As in encodeMessage.
				m.Extra = nil
				raw, _ = sessionio.Marshal(m)
			}
			f.RawMessages = append(f.RawMessages, raw)
		}
	}
	return f
}

// file is the session file without its raw messages.
func (s *Session) file() *sessionio.File {
	return &sessionio.File{
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
}

// Encode renders the session as a session file of at most
// sessionio.MaxFileSize. To fit, it drops the oldest turns from the session
// itself, down to the last one, and then cuts the largest message content
// with a visible marker. The notes say what it dropped.
func (s *Session) Encode() (data []byte, notes []string, err error) {
	e, err := s.EncodeTo(nil)
	return e.Data, e.Notes, err
}

// Encoded is a session file as EncodeTo wrote it, with the buffers that a
// later EncodeTo (of any session) may write in.
type Encoded struct {
	Data  []byte
	Notes []string
	// Freed is the file the session's kept bytes were in until now, which
	// nothing refers to any more; nil when there is none.
	Freed []byte
	// DataFree says that what the session keeps of Data is copied out of
	// it, so that Data is free once it is written out.
	DataFree bool
}

// EncodeTo is Encode, writing the file in buf when it has room (see
// sessionio.EncodeTo; what buf held is lost). A save after each turn of a
// long conversation then writes in the buffer of an earlier save instead
// of allocating one the size of the file.
func (s *Session) EncodeTo(buf []byte) (Encoded, error) {
	held := s.savedFile
	data, dropped, cuts, err := s.encodeToFit(buf)
	e := Encoded{Data: data, DataFree: err == nil && s.savedFile == nil}
	if len(held) > 0 && (s.savedFile == nil || &held[:1][0] != &s.savedFile[:1][0]) {
		e.Freed = held
	}
	if dropped > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("dropped the %d oldest turn(s) to keep the session file under 10 MiB", dropped))
	}
	e.Notes = append(e.Notes, cuts...)
	return e, err
}

// encodeToFit is Encode, saying how many turns it dropped and what it cut.
// Each message is encoded once: a save reuses the bytes of the messages the
// last one wrote, and a retry after dropping turns those of the first try.
func (s *Session) encodeToFit(buf []byte) (data []byte, dropped int, cuts []string, err error) {
	if s.Created.IsZero() {
		s.Created = time.Now()
	}
	for {
		f := s.file()
		saved := s.reuseSaved(f)
		data, err = sessionio.EncodeTo(buf, f)
		buf = nil // a retry copies bytes of this try
		var tooLarge *sessionio.SizeError
		if !errors.As(err, &tooLarge) {
			if err == nil {
				s.keep(saved.from(f), data)
			}
			return data, dropped, cuts, err
		}
		s.keep(saved.from(f), data) // the retry copies the same bytes
		excess := int(tooLarge.Size) - sessionio.MaxFileSize
		if n := s.dropOldestTurns(excess); n > 0 {
			dropped += n
			continue
		}
		note, ok := s.cutLargestContent(excess)
		if !ok {
			return nil, dropped, cuts, err
		}
		cuts = append(cuts, note)
	}
}

// keep makes saved, made from the file data, what the session keeps of
// its last save.
func (s *Session) keep(saved *savedMessages, data []byte) {
	s.saved, s.savedFile = saved, nil
	if saved.inFile && len(data) > 0 {
		s.savedFile = data
	}
}

// savedMessages is what a save wrote: the system prompt, the history and
// the legacy list, and the bytes of each of their messages in that file.
type savedMessages struct {
	system  string
	history []Message
	legacy  []sessionio.LegacyMessage
	// raw holds the bytes of the system prompt and then of each history
	// message, legacy those of each legacy message.
	raw, legacyData []sessionio.EncodedMessage
	// inFile says that raw and legacyData are bytes of the file the save
	// wrote, not copies.
	inFile bool
}

// reuseSaved fills in f the chat messages to write and, of the messages
// the last save wrote that are still there unchanged, their bytes.
func (s *Session) reuseSaved(f *sessionio.File) *savedMessages {
	last := s.saved
	if last == nil {
		last = &savedMessages{}
	}
	// Copies: a message can be changed in place (cutLargestContent does).
	out := &savedMessages{system: s.SystemPrompt, history: slices.Clone(s.History), legacy: slices.Clone(s.Legacy)}
	f.EncodedLegacy = reuse(last.legacy, last.legacyData, s.Legacy, func(a, b sessionio.LegacyMessage) bool { return a == b })
	if len(s.History) == 0 {
		return out
	}
	f.Chat = append([]Message{{Role: RoleSystem, Content: s.SystemPrompt}}, s.History...)
	f.Encoded = make([]sessionio.EncodedMessage, 1, len(f.Chat))
	if len(last.raw) > 0 && last.system == s.SystemPrompt {
		f.Encoded[0] = last.raw[0]
	}
	var lastHistory []sessionio.EncodedMessage
	if len(last.raw) > 0 {
		lastHistory = last.raw[1:]
	}
	f.Encoded = append(f.Encoded, reuse(last.history, lastHistory, s.History, sameMessage)...)
	return out
}

// savedInFile is what the file just read holds of the history and its
// system prompt, as if a save had written them: the bytes of each element
// read as it stands (sessionio.Element.AsWritten) whose message the
// history keeps unchanged. The first save of a loaded session then copies
// them, as every later save copies what the one before wrote: a 10 MiB
// file is not encoded again for the turn that follows its load. What
// loading changed, or laid out otherwise, is encoded anew.
func savedInFile(f *sessionio.File, history []Message, at []int, system string) *savedMessages {
	if len(f.Elements) != len(f.RawMessages) || len(at) != len(history) {
		return nil // built in memory: there are no bytes to keep
	}
	saved := &savedMessages{system: system, history: slices.Clone(history), raw: make([]sessionio.EncodedMessage, len(history)+1)}
	for i, e := range f.Elements {
		if e.Err == nil && e.Message.Role == RoleSystem {
			// The first system message is the prompt, as decodeHistory reads it.
			if e.AsWritten && sameMessage(e.Message, Message{Role: RoleSystem, Content: system}) {
				saved.raw[0] = sessionio.EncodedMessage(f.RawMessages[i])
			}
			break
		}
	}
	for k, i := range at {
		if e := f.Elements[i]; e.AsWritten && sameMessage(e.Message, history[k]) {
			saved.raw[k+1] = sessionio.EncodedMessage(f.RawMessages[i])
		}
	}
	kept, _ := keepSome(saved.raw)
	saved.raw = kept[0]
	return saved
}

// from takes the bytes Encode wrote for each message of f, those that
// keepSome keeps.
func (m *savedMessages) from(f *sessionio.File) *savedMessages {
	kept, copied := keepSome(f.Encoded, f.EncodedLegacy)
	m.raw, m.legacyData = kept[0], kept[1]
	m.inFile = !copied
	return m
}

// reuse returns the bytes of each message of list that was written before
// as the same message of last, whose bytes are data; nil for the others.
// A turn appends to a list and trimming cuts its front, so the messages of
// the last save are found in the same order from the first still there.
func reuse[T any](last []T, data []sessionio.EncodedMessage, list []T, same func(a, b T) bool) []sessionio.EncodedMessage {
	out := make([]sessionio.EncodedMessage, len(list))
	if len(list) == 0 || len(data) != len(last) {
		return out
	}
	from := slices.IndexFunc(last, func(m T) bool { return same(m, list[0]) })
	if from < 0 {
		return out
	}
	for i, m := range list {
		if j := from + i; j < len(last) && same(last[j], m) {
			out[i] = data[j]
		}
	}
	return out
}

// sameMessage reports whether a and b are equal. Messages are values that
// are never changed in place, so the texts of a message saved before are
// the same strings and compare at once.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && a.Name == b.Name &&
		sameExtra(a.Extra, b.Extra) && slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y ToolCall) bool {
		return x.ID == y.ID && x.Type == y.Type && x.Function == y.Function && sameExtra(x.Extra, y.Extra)
	})
}

func sameExtra(a, b map[string]json.RawMessage) bool {
	return maps.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
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
		freed += turnSize(s.History, history, n, s.savedSize) + turnSize(s.Legacy, legacy, n, s.legacySize)
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
func turnSize[T any](list []T, starts []int, i int, size func(int, T) int) int {
	if i >= len(starts) {
		return 0
	}
	end := len(list)
	if i+1 < len(starts) {
		end = starts[i+1]
	}
	n := 0
	for j := starts[i]; j < end; j++ {
		n += size(j, list[j])
	}
	return n
}

// savedSize is the size of history message i in the file the last save
// tried to write.
func (s *Session) savedSize(i int, m Message) int {
	if s.saved != nil && i+1 < len(s.saved.raw) && s.saved.raw[i+1] != nil {
		return len(s.saved.raw[i+1]) + len(",\n    ")
	}
	n := len(m.Content) + 64
	for _, c := range m.ToolCalls {
		n += len(c.Function.Arguments) + len(c.ID) + 96
	}
	return n
}

// legacySize is the same for legacy message i.
func (s *Session) legacySize(i int, m sessionio.LegacyMessage) int {
	if s.saved != nil && i < len(s.saved.legacyData) && s.saved.legacyData[i] != nil {
		return len(s.saved.legacyData[i]) + len(",\n    ")
	}
	return len(m.Content) + 96
}

// cutMarker leaves a visible trace of a cut in the content, for the user
// and for the model.
const cutMarker = "\n[aiq-rpc: cut %d of %d bytes here to keep the session file under 10 MiB]"

// cutLargestContent shortens the largest content of the session, in the
// history or the legacy list, by at least excess bytes, or as far as it
// goes: the caller then cuts the next largest.
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
	// Below this, a cut and its marker would free too little to go on.
	const smallest = 1024
	if largest == nil || len(*largest) < smallest {
		return "", false
	}
	total := len(*largest)
	// Escapes make a content byte take one to six bytes in the file; cut
	// by the content's own average so that one pass is usually enough.
	encoded, _ := sessionio.Marshal(*largest)
	ratio := float64(len(encoded)) / float64(max(total, 1))
	keep := max(total-int(math.Ceil(float64(excess)/ratio))-len(cutMarker)-64, 0)
	for keep > 0 && !utf8.RuneStart((*largest)[keep]) {
		keep--
	}
	*largest = (*largest)[:keep] + fmt.Sprintf(cutMarker, total-keep, total)
	return fmt.Sprintf("cut a %d-byte message to %d bytes to keep the session file under 10 MiB", total, keep), true
}

// clone returns a copy that a turn can change while s is still read: the
// lists are clipped, so appending to the copy's never writes into s's.
// The file the kept bytes are in goes with the copy: the two share those
// bytes, and only one may hand the file on once its next save is written
// (see EncodeTo); s, if it is saved again instead, leaves it to the
// collector.
func (s *Session) clone() *Session {
	c := *s
	c.History = slices.Clip(s.History)
	c.Legacy = slices.Clip(s.Legacy)
	s.savedFile = nil
	return &c
}
