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

// MaxFileSize is the largest session file aiq-rpc writes. Larger files
// (the CLI does not enforce this limit) are read up to MaxReadSize, and lose
// their oldest turns when next saved.
const MaxFileSize = 10 << 20

// MaxReadSize is the largest session file aiq-rpc opens: a ceiling that keeps
// a loaded session's memory in bounds. A larger file is refused from its
// size alone, before it is read.
const MaxReadSize = 64 << 20

// The AIQ CLI refuses a session whose data_source or database_type is empty,
// yet writes its own no-database sessions that way. aiq-rpc writes these
// placeholders instead, which the CLI reads as a source that no longer exists
// (it then runs without a database), and reads them back as "no database".
const (
	NoSourceName = "(no database)"
	NoSourceType = "none"
)

// UnknownType is written as the type of a named source whose type is not
// known: a file without one, whose source is not configured here. It reads
// back as "".
const UnknownType = "unknown"

// ErrTooLarge and ErrInvalid classify the errors of Decode, ReadFile and the
// writers, so that callers can tell a file that is too big from a broken one.
var (
	ErrTooLarge = errors.New("session file too large")
	ErrInvalid  = errors.New("invalid session file")
)

// SizeError is a session file over a size limit: MaxFileSize for a file
// being written, MaxReadSize for one being read. It matches ErrTooLarge
// under errors.Is, and carries the size so that a writer knows how much it
// has to drop.
type SizeError struct {
	Size int64
	// Reading is set when the file was too large to open at all.
	Reading bool
}

func (e *SizeError) Error() string {
	if e.Reading {
		return fmt.Sprintf("%v: %s is over the %s that aiq-rpc opens (it keeps the files it writes under %s); start a new session, or load a copy of this file from which you have cut the oldest entries of \"messages\" and \"raw_messages\"",
			ErrTooLarge, byteSize(e.Size), byteSize(MaxReadSize), byteSize(MaxFileSize))
	}
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

// File is a session file.
type File struct {
	Metadata Metadata
	Messages []LegacyMessage
	// RawMessages are the elements of raw_messages as they stand in the
	// file: OpenAI chat messages.
	RawMessages []json.RawMessage
	// Elements are RawMessages decoded and normalised, one for one; Decode
	// sets them. Package conversation builds the history of them.
	Elements []Element
	// Chat, when not nil, replaces RawMessages when the file is written:
	// the chat messages to write. Encoded holds one entry for each, the
	// bytes of the element when they are known (see Encode), or nil.
	Chat    []Message
	Encoded []EncodedMessage
	// EncodedLegacy is the same for Messages: nil, or one entry for each.
	EncodedLegacy []EncodedMessage
	// Extra holds top-level keys this version does not know.
	Extra map[string]json.RawMessage
	// Size is the size of the decoded file in bytes; 0 for a File built in
	// memory.
	Size int64
}

// Element is one element of raw_messages, decoded as DecodeMessage does.
type Element struct {
	Message  Message
	Warnings []string
	// Err is why the element cannot be used at all.
	Err error
	// BadUTF8 is set when the element held invalid UTF-8, read as U+FFFD.
	BadUTF8 bool
	// AsWritten is set when the element is a message of the usual shape,
	// read with nothing changed and laid out as Encode lays one out: its
	// bytes in the file may stand for Message when the file is written
	// again (see File.Encoded).
	AsWritten bool
}

// Decode parses a session file of up to MaxReadSize in one pass. It refuses
// anything that is not one JSON object, naming the field path of a
// malformed field. Invalid UTF-8 inside a string is read as U+FFFD, as the
// CLI reads it, with a warning naming where. Legacy messages that the CLI
// would refuse are skipped and reported in the returned warnings instead.
func Decode(data []byte) (*File, []string, error) {
	if len(data) > MaxReadSize {
		return nil, nil, &SizeError{Size: int64(len(data)), Reading: true}
	}
	if err := checkTop(data); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	d := decoder{s: scanner{data: data}}
	if !utf8.Valid(data) {
		d.s.data, d.fixed = replaceInvalidUTF8(data)
	}
	if err := d.document(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, syntaxError(data))
	}
	return d.file()
}

// checkTop refuses what is plainly not one JSON object.
func checkTop(data []byte) error {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return errors.New("the file starts with a byte order mark; save it as UTF-8 without one")
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return errors.New("the file is empty")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return syntaxError(data)
		}
		return fmt.Errorf("want one JSON object, found %s", Kind(trimmed))
	}
	return nil
}

// syntaxError describes why data is not valid JSON as encoding/json does,
// with a line and column.
func syntaxError(data []byte) error {
	err := json.Unmarshal(data, new(any))
	if err == nil {
		return errSyntax
	}
	return jsonSyntaxError(data, err)
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
	if md.DatabaseType == NoSourceType || md.DatabaseType == UnknownType || md.DataSource == "" {
		// Without a source there is no database, whatever type was written
		// next to it (the CLI writes its own such sessions with a type).
		md.DatabaseType = ""
	}
	var warnings []string
	for _, k := range members.DropCaseVariants("created_at", "last_updated", "data_source", "database_type") {
		warnings = append(warnings, fmt.Sprintf("metadata.%s: another spelling of a known key, which the CLI would read in its place; dropped", k))
	}
	md.Extra = members.Rest()
	return md, warnings, nil
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

func byteSize(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
