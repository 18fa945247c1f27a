package sessionio

// The codec as it was before the one-pass decoder and the direct encoder:
// the oracle that FuzzDecodeMatchesOld and FuzzEncodeMatchesOld compare the
// new ones with. Kept in a test file only.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

func oldDecode(data []byte) (*File, []string, error) {
	if len(data) > MaxFileSize {
		return nil, nil, &SizeError{Size: int64(len(data))}
	}
	top, err := oldDecodeTop(data)
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
		if f.Messages, w, err = oldDecodeLegacy(raw); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		warnings = append(warnings, w...)
	}
	if raw, ok := top.Take("raw_messages"); ok {
		if f.RawMessages, err = oldDecodeArray(raw, "raw_messages"); err != nil {
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
func oldDecodeTop(data []byte) (Members, error) {
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return nil, errors.New("the file starts with a byte order mark; save it as UTF-8 without one")
	}
	if !utf8.Valid(data) {
		line, col := position(data, oldInvalidUTF8Offset(data))
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

func oldDecodeLegacy(raw json.RawMessage) ([]LegacyMessage, []string, error) {
	elems, err := oldDecodeArray(raw, "messages")
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

func oldDecodeArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
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

func oldInvalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

func oldEncode(f *File) ([]byte, error) {
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
	md, err := oldEncodeMetadata(f.Metadata)
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

func oldEncodeMetadata(md Metadata) (json.RawMessage, error) {
	type wire struct {
		CreatedAt    time.Time `json:"created_at"`
		LastUpdated  time.Time `json:"last_updated"`
		DataSource   string    `json:"data_source"`
		DatabaseType string    `json:"database_type"`
	}
	w := wire{md.CreatedAt.UTC(), md.LastUpdated.UTC(), md.DataSource, md.DatabaseType}
	// The metadata rule of issue 12, applied here too: no source means no
	// type, and a named source of no known type is "unknown".
	if w.DataSource == "" {
		w.DataSource, w.DatabaseType = NoSourceName, ""
	}
	if w.DatabaseType == "" {
		w.DatabaseType = NoSourceType
		if w.DataSource != NoSourceName {
			w.DatabaseType = UnknownType
		}
	}
	if md.LastUpdated.IsZero() {
		w.LastUpdated = w.CreatedAt
	}
	return MarshalWithExtra(w, md.Extra)
}
