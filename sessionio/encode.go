package sessionio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// EncodedMessage is one element of raw_messages as Encode writes it:
// indented for its place in the file, without the comma after it. A caller
// that keeps the EncodedMessage of each message it saved writes the next
// save of the same messages by copying bytes.
type EncodedMessage []byte

// EncodeMessage renders m as an element of raw_messages.
func EncodeMessage(m Message) (EncodedMessage, error) {
	e := encoder{buf: make([]byte, 0, escapedSize(m.Content)+escapedSize(m.Name)+escapedSize(m.ToolCallID)+128)}
	for _, c := range m.ToolCalls {
		e.buf = slices.Grow(e.buf, escapedSize(c.Function.Arguments)+len(c.ID)+128)
	}
	if err := e.message(m); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// Encode renders f as the CLI writes it: indented JSON, UTC times, empty
// lists omitted, strings escaped as encoding/json escapes them without
// HTML escaping. Every file it returns passes the CLI's load rules; it
// refuses a File that could not (no creation time, an empty legacy message)
// and a result over MaxFileSize, with a *SizeError.
//
// The file is written directly in its final form, in one pass: the same
// bytes as json.MarshalIndent of the same values. An element whose bytes
// are given in Encoded or EncodedLegacy is copied as it is; Encode then sets
// every entry of those to the element's bytes within the file it returns
// (also when it returns a *SizeError), so that the next Encode of the same
// messages copies them again.
func Encode(f *File) ([]byte, error) {
	return EncodeTo(nil, f)
}

// EncodeTo is Encode, writing the file in buf when buf has room for it
// (what buf held is lost), so that a save after each turn need not
// allocate a new buffer the size of the file.
func EncodeTo(buf []byte, f *File) ([]byte, error) {
	if f.Metadata.CreatedAt.IsZero() {
		return nil, errors.New("encode session: metadata.created_at is not set")
	}
	for i, m := range f.Messages {
		if (m.Role != "user" && m.Role != "assistant") || m.Content == "" {
			return nil, fmt.Errorf("encode session: messages[%d]: the CLI refuses role %q with %d bytes of content", i, m.Role, len(m.Content))
		}
	}
	// Work on a copy: of the caller's File, only the entries of Encoded
	// and EncodedLegacy change.
	f = &File{Metadata: f.Metadata, Messages: f.Messages, RawMessages: f.RawMessages, Chat: f.Chat, Encoded: f.Encoded, EncodedLegacy: f.EncodedLegacy, Extra: f.Extra}
	if f.Chat == nil {
		raws, err := indentElements(f.RawMessages)
		if err != nil {
			return nil, fmt.Errorf("encode session: %w", err)
		}
		f.Chat, f.Encoded = make([]Message, len(raws)), raws
	}
	if f.EncodedLegacy == nil {
		f.EncodedLegacy = make([]EncodedMessage, len(f.Messages))
	}
	size := estimateSize(f)
	if cap(buf) < size {
		// Room for the turns that follow, so that the buffer can take the
		// next saves of the session too.
		buf = make([]byte, 0, size+size/8)
	}
	e := encoder{buf: buf[:0]}
	e.buf = append(e.buf, "{\n  \"metadata\": "...)
	if err := e.metadata(f.Metadata); err != nil {
		return nil, fmt.Errorf("encode session: metadata: %w", err)
	}
	if err := e.list("messages", f.EncodedLegacy, func(i int) error { return e.legacy(f.Messages[i]) }); err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	e.list("raw_messages", f.Encoded, func(i int) error {
		start := len(e.buf)
		if err := e.message(f.Chat[i]); err != nil {
			// Only an Extra value that is not JSON can fail, and only when
			// set by hand; losing that key beats losing the turn.
			e.buf = e.buf[:start]
			m := f.Chat[i]
			m.Extra = nil
			return e.message(m)
		}
		return nil
	})
	if err := e.extra(1, f.Extra, "metadata", "messages", "raw_messages"); err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	e.buf = append(e.buf, "\n}\n"...)
	if len(e.buf) > MaxFileSize {
		return nil, fmt.Errorf("encode session: %w", &SizeError{Size: int64(len(e.buf))})
	}
	return e.buf, nil
}

// estimateSize is about the size of the file, to allocate it once.
func estimateSize(f *File) int {
	n := 1024
	for i, m := range f.Messages {
		if i < len(f.EncodedLegacy) && f.EncodedLegacy[i] != nil {
			n += len(f.EncodedLegacy[i]) + 6
		} else {
			n += escapedSize(m.Content) + 96
		}
	}
	for i, m := range f.Chat {
		if f.Encoded[i] != nil {
			n += len(f.Encoded[i]) + 6
			continue
		}
		n += escapedSize(m.Content) + 128
		for _, c := range m.ToolCalls {
			n += escapedSize(c.Function.Arguments) + len(c.ID) + 160
		}
	}
	return n
}

// indentElements renders raw chat messages of any layout as elements of
// raw_messages.
func indentElements(raws []json.RawMessage) ([]EncodedMessage, error) {
	out := make([]EncodedMessage, 0, len(raws))
	for i, raw := range raws {
		var buf bytes.Buffer
		if err := json.Indent(&buf, bytes.TrimSpace(raw), "    ", "  "); err != nil {
			return nil, fmt.Errorf("raw_messages[%d]: not valid JSON: %w", i, err)
		}
		out = append(out, buf.Bytes())
	}
	return out, nil
}

// encoder appends the parts of a session file to buf, indented by two
// spaces a level.
type encoder struct {
	buf []byte
}

// list writes a top-level array, leaving out an empty one. Element i is
// encoded[i] when that is set, else what write(i) writes; encoded[i] is
// then set to its bytes in the file.
func (e *encoder) list(key string, encoded []EncodedMessage, write func(i int) error) error {
	if len(encoded) == 0 {
		return nil
	}
	e.buf = append(e.buf, ",\n  \""...)
	e.buf = append(e.buf, key...)
	e.buf = append(e.buf, "\": ["...)
	for i, element := range encoded {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, "\n    "...)
		start := len(e.buf)
		if element != nil {
			e.buf = append(e.buf, element...)
		} else if err := write(i); err != nil {
			return fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		encoded[i] = e.buf[start:len(e.buf):len(e.buf)]
	}
	e.buf = append(e.buf, "\n  ]"...)
	return nil
}

// key starts a member at depth; first says whether it opens the object.
func (e *encoder) key(depth int, name string, first bool) {
	if first {
		e.buf = append(e.buf, '{')
	} else {
		e.buf = append(e.buf, ',')
	}
	e.newline(depth)
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, "\": "...)
}

// close ends an object or array whose members are at depth+1.
func (e *encoder) close(depth int, c byte) {
	e.newline(depth)
	e.buf = append(e.buf, c)
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *encoder) str(s string) {
	e.buf = appendString(e.buf, s, false)
}

func (e *encoder) time(t time.Time) error {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return fmt.Errorf("the year %d is outside the range 0 to 9999", y)
	}
	e.buf = append(e.buf, '"')
	e.buf = t.AppendFormat(e.buf, time.RFC3339Nano)
	e.buf = append(e.buf, '"')
	return nil
}

// metadata writes the metadata object at depth 1. A session without a
// database is written with the placeholders whatever its type, a named
// source of no known type as UnknownType, and a missing last_updated as the
// creation time, so that the CLI accepts the file and it says what the
// session uses.
func (e *encoder) metadata(md Metadata) error {
	source, typ, updated := md.DataSource, md.DatabaseType, md.LastUpdated
	switch {
	case source == "":
		source, typ = NoSourceName, NoSourceType
	case typ == "":
		typ = UnknownType
	}
	if updated.IsZero() {
		updated = md.CreatedAt
	}
	e.key(2, "created_at", true)
	if err := e.time(md.CreatedAt); err != nil {
		return fmt.Errorf("created_at: %w", err)
	}
	e.key(2, "last_updated", false)
	if err := e.time(updated); err != nil {
		return fmt.Errorf("last_updated: %w", err)
	}
	e.key(2, "data_source", false)
	e.str(source)
	e.key(2, "database_type", false)
	e.str(typ)
	if err := e.extra(2, md.Extra, "created_at", "last_updated", "data_source", "database_type"); err != nil {
		return err
	}
	e.close(1, '}')
	return nil
}

// legacy writes a legacy message at depth 2.
func (e *encoder) legacy(m LegacyMessage) error {
	e.key(3, "role", true)
	e.str(m.Role)
	e.key(3, "content", false)
	e.str(m.Content)
	if !m.Timestamp.IsZero() {
		e.key(3, "timestamp", false)
		if err := e.time(m.Timestamp); err != nil {
			return fmt.Errorf("timestamp: %w", err)
		}
	}
	e.close(2, '}')
	return nil
}

// message writes a chat message at depth 2.
func (e *encoder) message(m Message) error {
	e.key(3, "role", true)
	e.str(string(m.Role))
	e.key(3, "content", false)
	e.str(m.Content)
	if len(m.ToolCalls) > 0 {
		e.key(3, "tool_calls", false)
		e.buf = append(e.buf, '[')
		for i, c := range m.ToolCalls {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.newline(4)
			if err := e.toolCall(c); err != nil {
				return fmt.Errorf("tool_calls[%d]: %w", i, err)
			}
		}
		e.close(3, ']')
	}
	if m.ToolCallID != "" {
		e.key(3, "tool_call_id", false)
		e.str(m.ToolCallID)
	}
	if m.Name != "" {
		e.key(3, "name", false)
		e.str(m.Name)
	}
	if err := e.extra(3, m.Extra, "role", "content", "tool_calls", "tool_call_id", "name"); err != nil {
		return err
	}
	e.close(2, '}')
	return nil
}

// toolCall writes a tool call at depth 4.
func (e *encoder) toolCall(c ToolCall) error {
	e.key(5, "id", true)
	e.str(c.ID)
	e.key(5, "type", false)
	e.str(c.Type)
	e.key(5, "function", false)
	e.key(6, "name", true)
	e.str(c.Function.Name)
	e.key(6, "arguments", false)
	e.str(c.Function.Arguments)
	e.close(5, '}')
	if err := e.extra(5, c.Extra, "id", "type", "function"); err != nil {
		return err
	}
	e.close(4, '}')
	return nil
}

// extra writes the extra members of an object at depth in sorted order,
// leaving out a key that matches one of fields in any case: the CLI reads
// with encoding/json, which matches keys without regard to case, and would
// take it for the field.
func (e *encoder) extra(depth int, extra map[string]json.RawMessage, fields ...string) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	prefix := strings.Repeat("  ", depth)
	for _, k := range keys {
		value := bytes.TrimSpace(extra[k])
		if !json.Valid(value) {
			return fmt.Errorf("extra key %q: not valid JSON", k)
		}
		e.buf = append(e.buf, ',')
		e.newline(depth)
		// json.Marshal escapes HTML in keys; so did every earlier version.
		e.buf = appendString(e.buf, k, true)
		e.buf = append(e.buf, ": "...)
		out := bytes.NewBuffer(e.buf)
		json.Indent(out, value, prefix, "  ") // valid: cannot fail
		e.buf = out.Bytes()
	}
	return nil
}

// escapedSize is about the size of s as a JSON string: tool results are
// JSON text, full of quotes, and allocating their room at once saves
// growing the buffer as it fills.
func escapedSize(s string) int {
	return len(s) + strings.Count(s, `"`) + strings.Count(s, `\`) + len(s)/64 + 2
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as json.Marshal writes
// it, HTML escapes included: the session files' string encoder, for code
// that writes the same messages as JSON elsewhere, such as a model request.
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, s, true)
}

// appendString appends s as a JSON string exactly as encoding/json writes
// it: invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and with
// escapeHTML also <, > and &. Tool results are JSON text with a quote every
// few bytes, so it writes byte by byte into room made beforehand rather
// than append a short run before each escape.
func appendString(dst []byte, s string, escapeHTML bool) []byte {
	plain := &plainBytes
	if escapeHTML {
		plain = &plainBytesHTML
	}
	dst = slices.Grow(dst, len(s)+len(s)/8+16)
	n := len(dst)
	dst = dst[:cap(dst)]
	dst[n] = '"'
	n++
	// Room for the rest of s written plainly, and for an escape, is kept
	// before each escape; a plain byte takes the room it leaves.
	for i := 0; i < len(s); {
		b := s[i]
		if plain[b] {
			dst[n] = b
			n++
			i++
			continue
		}
		if len(dst)-n < len(s)-i+8 {
			dst = slices.Grow(dst[:n], 2*(len(s)-i)+16)
			dst = dst[:cap(dst)]
		}
		if b == '"' || b == '\\' {
			// The escapes of JSON text in a tool result, a few bytes
			// apart: written here rather than through escapeByte's switch.
			dst[n], dst[n+1] = '\\', b
			n += 2
			i++
			continue
		}
		if b < utf8.RuneSelf {
			n += escapeByte(dst[n:], b)
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			n += copy(dst[n:], `\ufffd`)
		case c == '\u2028' || c == '\u2029':
			n += copy(dst[n:], []byte{'\\', 'u', '2', '0', '2', hexDigits[c&0xF]})
		default:
			n += copy(dst[n:], s[i:i+size])
		}
		i += size
	}
	if n == len(dst) {
		dst = slices.Grow(dst[:n], 1)[:n+1]
	}
	dst[n] = '"'
	return dst[:n+1]
}

// plainBytes are the bytes written as they are in a JSON string: ASCII but
// for control characters, the quote and the backslash; plainBytesHTML the
// same without <, > and &.
var plainBytes, plainBytesHTML = func() (plain, html [256]bool) {
	for b := range utf8.RuneSelf {
		plain[b] = !special[b]
		html[b] = plain[b] && b != '<' && b != '>' && b != '&'
	}
	return plain, html
}()

// escapeByte writes the escape of an ASCII byte to dst and returns its
// length.
func escapeByte(dst []byte, b byte) int {
	switch b {
	case '\\', '"':
		dst[0], dst[1] = '\\', b
	case '\b':
		dst[0], dst[1] = '\\', 'b'
	case '\f':
		dst[0], dst[1] = '\\', 'f'
	case '\n':
		dst[0], dst[1] = '\\', 'n'
	case '\r':
		dst[0], dst[1] = '\\', 'r'
	case '\t':
		dst[0], dst[1] = '\\', 't'
	default:
		return copy(dst, []byte{'\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF]})
	}
	return 2
}
