package sessionio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxFileSize is the largest session file aiq-rpc reads or writes.
const MaxFileSize = 10 << 20

// The AIQ CLI refuses a session whose data_source or database_type is empty,
// yet writes its own no-database sessions that way. aiq-rpc writes these
// placeholders instead, which the CLI reads as a source that no longer exists
// (it then runs without a database), and reads them back as "no database".
const (
	NoSourceName = "(no database)"
	NoSourceType = "none"
)

// ErrTooLarge and ErrInvalid classify the errors of Decode, ReadFile and the
// writers, so that callers can tell a file that is too big from a broken one.
var (
	ErrTooLarge = errors.New("session file too large")
	ErrInvalid  = errors.New("invalid session file")
)

// SizeError is a session file over MaxFileSize. It matches ErrTooLarge
// under errors.Is, and carries the size so that a writer knows how much
// it has to drop.
type SizeError struct {
	Size int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%v: %s is over the %s limit", ErrTooLarge, byteSize(e.Size), byteSize(MaxFileSize))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// Metadata is a session file's metadata object.
type Metadata struct {
	CreatedAt   time.Time
	LastUpdated time.Time
	// DataSource is the source's name in sources.yaml; "" means no database.
	DataSource string
	// DatabaseType is the source's type in lower case; "" when unknown.
	DatabaseType string
	// Extra holds keys this version does not know, kept for the round trip.
	Extra map[string]json.RawMessage
}

// LegacyMessage is an element of the legacy "messages" list: one user and
// one assistant entry per turn.
type LegacyMessage struct {
	Role      string
	Content   string
	Timestamp time.Time // zero when the file had none
}

// File is a decoded session file.
type File struct {
	Metadata Metadata
	Messages []LegacyMessage
	// RawMessages are the elements of raw_messages, undecoded: they are
	// OpenAI chat messages, which package conversation interprets.
	RawMessages []json.RawMessage
	// Extra holds top-level keys this version does not know.
	Extra map[string]json.RawMessage
}

// Decode parses a session file. It refuses data over MaxFileSize, invalid
// UTF-8 and anything that is not one JSON object, naming the field path of
// a malformed field. Legacy messages that the CLI would refuse are skipped
// and reported in the returned warnings instead.
func Decode(data []byte) (*File, []string, error) {
	if len(data) > MaxFileSize {
		return nil, nil, &SizeError{Size: int64(len(data))}
	}
	top, err := decodeTop(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	f := &File{}
	var warnings []string
	if raw, ok := top.Take("metadata"); ok && !IsNull(raw) {
		var w []string
		if f.Metadata, w, err = decodeMetadata(raw); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		warnings = append(warnings, w...)
	} else {
		warnings = append(warnings, "metadata: missing; read as a session with no database")
	}
	if raw, ok := top.Take("messages"); ok {
		var w []string
		if f.Messages, w, err = decodeLegacy(raw); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		warnings = append(warnings, w...)
	}
	if raw, ok := top.Take("raw_messages"); ok {
		if f.RawMessages, err = decodeArray(raw, "raw_messages"); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	for _, k := range top.DropCaseVariants("metadata", "messages", "raw_messages") {
		warnings = append(warnings, fmt.Sprintf("%s: another spelling of a known key, which the CLI would read in its place; dropped", k))
	}
	f.Extra = top.Rest()
	return f, warnings, nil
}

// decodeTop checks that data is exactly one JSON object in UTF-8 and returns
// its members.
func decodeTop(data []byte) (Members, error) {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return nil, errors.New("the file starts with a byte order mark; save it as UTF-8 without one")
	}
	if !utf8.Valid(data) {
		line, col := position(data, invalidUTF8Offset(data))
		return nil, fmt.Errorf("line %d, column %d: invalid UTF-8", line, col)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the file is empty")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return nil, jsonSyntaxError(data, json.Unmarshal(data, new(any)))
		}
		return nil, fmt.Errorf("want one JSON object, found %s", Kind(trimmed))
	}
	var top Members
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonSyntaxError(data, err)
	}
	return top, nil
}

func jsonSyntaxError(data []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the offending one included,
		// unless the input simply ended.
		offset := int(syn.Offset)
		if !strings.Contains(syn.Error(), "unexpected end of JSON input") {
			offset--
		}
		line, col := position(data, offset)
		return fmt.Errorf("line %d, column %d: not valid JSON: %v", line, col, syn)
	}
	return fmt.Errorf("not valid JSON: %v", err)
}

func decodeMetadata(raw json.RawMessage) (Metadata, []string, error) {
	members, err := DecodeMembers(raw)
	if err != nil {
		return Metadata{}, nil, fmt.Errorf("metadata: %w", err)
	}
	var md Metadata
	if md.CreatedAt, err = members.TakeTime("created_at"); err != nil {
		return Metadata{}, nil, fmt.Errorf("metadata.%w", err)
	}
	if md.LastUpdated, err = members.TakeTime("last_updated"); err != nil {
		return Metadata{}, nil, fmt.Errorf("metadata.%w", err)
	}
	if md.DataSource, err = members.TakeString("data_source"); err != nil {
		return Metadata{}, nil, fmt.Errorf("metadata.%w", err)
	}
	if md.DatabaseType, err = members.TakeString("database_type"); err != nil {
		return Metadata{}, nil, fmt.Errorf("metadata.%w", err)
	}
	md.DatabaseType = strings.ToLower(md.DatabaseType)
	if md.DataSource == NoSourceName {
		md.DataSource = ""
	}
	if md.DatabaseType == NoSourceType {
		md.DatabaseType = ""
	}
	var warnings []string
	for _, k := range members.DropCaseVariants("created_at", "last_updated", "data_source", "database_type") {
		warnings = append(warnings, fmt.Sprintf("metadata.%s: another spelling of a known key, which the CLI would read in its place; dropped", k))
	}
	md.Extra = members.Rest()
	return md, warnings, nil
}

// decodeLegacy reads the legacy messages list. The CLI refuses a whole file
// for one bad element; aiq-rpc skips the element and says so.
func decodeLegacy(raw json.RawMessage) ([]LegacyMessage, []string, error) {
	elems, err := decodeArray(raw, "messages")
	if err != nil {
		return nil, nil, err
	}
	var msgs []LegacyMessage
	var warnings []string
	for i, elem := range elems {
		path := fmt.Sprintf("messages[%d]", i)
		m, err := decodeLegacyMessage(elem, path)
		if err != nil {
			warnings = append(warnings, err.Error()+"; skipped")
			continue
		}
		if m.timestampErr != nil {
			warnings = append(warnings, m.timestampErr.Error()+"; dropped")
		}
		msgs = append(msgs, m.LegacyMessage)
	}
	return msgs, warnings, nil
}

type decodedLegacy struct {
	LegacyMessage
	// timestampErr is set when the timestamp was malformed: that costs
	// only the timestamp, not the message.
	timestampErr error
}

func decodeLegacyMessage(raw json.RawMessage, path string) (decodedLegacy, error) {
	members, err := DecodeMembers(raw)
	if err != nil {
		return decodedLegacy{}, fmt.Errorf("%s: %w", path, err)
	}
	var m decodedLegacy
	if m.Role, err = members.TakeString("role"); err != nil {
		return decodedLegacy{}, fmt.Errorf("%s.%w", path, err)
	}
	if m.Role != "user" && m.Role != "assistant" {
		return decodedLegacy{}, fmt.Errorf("%s.role: want \"user\" or \"assistant\", found %q", path, m.Role)
	}
	if m.Content, err = members.TakeString("content"); err != nil {
		return decodedLegacy{}, fmt.Errorf("%s.%w", path, err)
	}
	if m.Content == "" {
		return decodedLegacy{}, fmt.Errorf("%s.content: empty", path)
	}
	if m.Timestamp, err = members.TakeTime("timestamp"); err != nil {
		m.timestampErr = fmt.Errorf("%s.%w", path, err)
	}
	return m, nil
}

func decodeArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	if IsNull(raw) {
		return nil, nil
	}
	if k := Kind(raw); k != "an array" {
		return nil, fmt.Errorf("%s: want an array, found %s", path, k)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return elems, nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = offset - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

func byteSize(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Encode renders f as the CLI writes it: indented JSON, UTC times, empty
// lists omitted. Every file it returns passes the CLI's load rules; it
// refuses a File that could not (no creation time, an empty legacy message)
// and a result over MaxFileSize.
func Encode(f *File) ([]byte, error) {
	if f.Metadata.CreatedAt.IsZero() {
		return nil, errors.New("encode session: metadata.created_at is not set")
	}
	type legacyWire struct {
		Role      string    `json:"role"`
		Content   string    `json:"content"`
		Timestamp time.Time `json:"timestamp,omitzero"`
	}
	type fileWire struct {
		Metadata    json.RawMessage   `json:"metadata"`
		Messages    []legacyWire      `json:"messages,omitempty"`
		RawMessages []json.RawMessage `json:"raw_messages,omitempty"`
	}
	md, err := encodeMetadata(f.Metadata)
	if err != nil {
		return nil, fmt.Errorf("encode session: metadata: %w", err)
	}
	wire := fileWire{Metadata: md, RawMessages: f.RawMessages}
	for i, m := range f.Messages {
		if (m.Role != "user" && m.Role != "assistant") || m.Content == "" {
			return nil, fmt.Errorf("encode session: messages[%d]: the CLI refuses role %q with %d bytes of content", i, m.Role, len(m.Content))
		}
		wire.Messages = append(wire.Messages, legacyWire{m.Role, m.Content, m.Timestamp.UTC()})
	}
	compact, err := MarshalWithExtra(wire, f.Extra)
	if err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	out.WriteByte('\n')
	if out.Len() > MaxFileSize {
		return nil, fmt.Errorf("encode session: %w", &SizeError{Size: int64(out.Len())})
	}
	return out.Bytes(), nil
}

func encodeMetadata(md Metadata) (json.RawMessage, error) {
	type wire struct {
		CreatedAt    time.Time `json:"created_at"`
		LastUpdated  time.Time `json:"last_updated"`
		DataSource   string    `json:"data_source"`
		DatabaseType string    `json:"database_type"`
	}
	w := wire{md.CreatedAt.UTC(), md.LastUpdated.UTC(), md.DataSource, md.DatabaseType}
	if w.DataSource == "" {
		w.DataSource = NoSourceName
	}
	if w.DatabaseType == "" {
		w.DatabaseType = NoSourceType
	}
	if md.LastUpdated.IsZero() {
		w.LastUpdated = w.CreatedAt
	}
	return MarshalWithExtra(w, md.Extra)
}
