package sessionio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// decoder is the state of one Decode. The usual shape of a legacy message
// or a chat message is decoded while it is scanned; an element of any
// other shape (null content, a duplicate key, a tool call without an id)
// goes to the general decoders on the Members of its bytes, which are the
// definition of what the format means. Both give the same result; the
// fast path is only the common case done without a second look.
type decoder struct {
	s     scanner
	top   Members
	fixed []int // offsets in s.data where invalid UTF-8 became U+FFFD
	next  int   // the first of fixed not yet reported

	legacyRead     bool // the last "messages" was an array, read below
	legacy         []LegacyMessage
	legacyWarnings []string

	rawRead  bool // the last "raw_messages" was an array, read below
	raws     []json.RawMessage
	elements []Element

	utf8Warnings []string // for the metadata and unknown top-level keys
}

// document reads the whole file: one object and nothing after it.
func (d *decoder) document() error {
	s := &d.s
	d.top = Members{}
	from := 0
	err := s.object(func(key string, _ bool) error {
		s.ws()
		start := s.pos
		switch {
		case key == "messages" && s.peek() == '[':
			d.legacyRead, d.legacy, d.legacyWarnings = true, nil, nil
			if err := s.array(d.legacyElement); err != nil {
				return err
			}
			d.top[key] = s.data[start : start+1] // enough to say it is an array
		case key == "raw_messages" && s.peek() == '[':
			d.rawRead, d.raws, d.elements = true, nil, nil
			if err := s.array(d.rawElement); err != nil {
				return err
			}
			d.top[key] = s.data[start : start+1]
		default:
			d.legacyRead = d.legacyRead && key != "messages"
			d.rawRead = d.rawRead && key != "raw_messages"
			raw, err := s.skip()
			if err != nil {
				return err
			}
			if d.isFixed(from, s.pos) {
				d.utf8Warnings = append(d.utf8Warnings, key+": "+badUTF8Warning)
			}
			d.top[key] = bytes.Clone(raw)
		}
		from = s.pos
		return nil
	})
	if err != nil {
		return err
	}
	if s.ws(); s.pos != len(s.data) {
		return errSyntax
	}
	return nil
}

// badUTF8Warning ends the warning about invalid UTF-8.
const badUTF8Warning = "invalid UTF-8, read as U+FFFD (\uFFFD) as the AIQ CLI reads it"

// isFixed reports whether invalid UTF-8 was replaced between start and end,
// which come in increasing order.
func (d *decoder) isFixed(start, end int) bool {
	for d.next < len(d.fixed) && d.fixed[d.next] < start {
		d.next++
	}
	return d.next < len(d.fixed) && d.fixed[d.next] < end
}

// file puts together what document read, in the order the warnings have
// always come in: metadata, legacy messages, spellings of known keys.
func (d *decoder) file() (*File, []string, error) {
	f := &File{Size: int64(len(d.s.data))}
	warnings := d.utf8Warnings
	var err error
	if raw, ok := d.top.Take("metadata"); ok && !IsNull(raw) {
		var w []string
		if f.Metadata, w, err = decodeMetadata(raw); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		warnings = append(warnings, w...)
	} else {
		warnings = append(warnings, "metadata: missing; read as a session with no database")
	}
	if raw, ok := d.top.Take("messages"); ok {
		if d.legacyRead {
			f.Messages = d.legacy
			warnings = append(warnings, d.legacyWarnings...)
		} else if _, err := decodeArray(raw, "messages"); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	if raw, ok := d.top.Take("raw_messages"); ok {
		if d.rawRead {
			f.RawMessages, f.Elements = d.raws, d.elements
		} else if _, err := decodeArray(raw, "raw_messages"); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	for _, k := range d.top.DropCaseVariants("metadata", "messages", "raw_messages") {
		warnings = append(warnings, fmt.Sprintf("%s: another spelling of a known key, which the CLI would read in its place; dropped", k))
	}
	f.Extra = d.top.Rest()
	return f, warnings, nil
}

// legacyElement reads element i of the legacy list.
func (d *decoder) legacyElement(i int) error {
	s := &d.s
	s.ws()
	start := s.pos
	var m LegacyMessage
	var stamp string
	usual := s.peek() == '{'
	if usual {
		seen := 0
		err := s.object(func(key string, _ bool) error {
			var bit int
			var dst *string
			switch key {
			case "role":
				bit, dst = 1, &m.Role
			case "content":
				bit, dst = 2, &m.Content
			case "timestamp":
				bit, dst = 4, &stamp
			default:
				return s.value() // the CLI ignores other keys, and so do we
			}
			if !usual {
				return s.value()
			}
			var err error
			usual, err = s.stringMember(&seen, bit, dst)
			return err
		})
		if err != nil {
			return err
		}
		usual = usual && (m.Role == "user" || m.Role == "assistant") && m.Content != ""
		if usual && seen&4 != 0 {
			var err error
			m.Timestamp, err = parseTime("timestamp", stamp)
			usual = err == nil
		}
	} else if err := s.value(); err != nil {
		return err
	}
	if d.isFixed(start, s.pos) {
		d.legacyWarnings = append(d.legacyWarnings, fmt.Sprintf("messages[%d]: %s", i, badUTF8Warning))
	}
	if usual {
		d.legacy = append(d.legacy, m)
		return nil
	}
	dm, err := decodeLegacyMessage(s.data[start:s.pos], fmt.Sprintf("messages[%d]", i))
	if err != nil {
		d.legacyWarnings = append(d.legacyWarnings, err.Error()+"; skipped")
		return nil
	}
	if dm.timestampErr != nil {
		d.legacyWarnings = append(d.legacyWarnings, dm.timestampErr.Error()+"; dropped")
	}
	d.legacy = append(d.legacy, dm.LegacyMessage)
	return nil
}

// rawElement reads element i of raw_messages.
func (d *decoder) rawElement(i int) error {
	s := &d.s
	s.ws()
	start := s.pos
	var e Element
	usual := s.peek() == '{'
	if usual {
		var err error
		if usual, err = d.usualMessage(&e.Message); err != nil {
			return err
		}
	} else if err := s.value(); err != nil {
		return err
	}
	raw := s.data[start:s.pos]
	if !usual {
		e.Message, e.Warnings, e.Err = DecodeMessage(raw)
	}
	e.BadUTF8 = d.isFixed(start, s.pos)
	e.AsWritten = usual && !e.BadUTF8 && writtenLayout(raw)
	d.raws = append(d.raws, raw)
	d.elements = append(d.elements, e)
	return nil
}

// writtenLayout reports whether raw, an element of raw_messages, is laid
// out as Encode lays one out, as json.MarshalIndent with two spaces does:
// each member on a line of its own, six spaces in, and the closing brace
// four.
func writtenLayout(raw []byte) bool {
	return bytes.HasPrefix(raw, []byte("{\n      \"")) && bytes.HasSuffix(raw, []byte("\n    }"))
}

// usualMessage reads a chat message of the usual shape into m, and reports
// false for any other shape, having read past it all the same.
func (d *decoder) usualMessage(m *Message) (bool, error) {
	s := &d.s
	usual := true
	seen := 0
	var role string
	err := s.object(func(key string, _ bool) error {
		if !usual {
			return s.value()
		}
		var bit int
		var dst *string
		switch key {
		case "role":
			bit, dst = 1, &role
		case "content":
			bit, dst = 2, &m.Content
		case "tool_call_id":
			bit, dst = 4, &m.ToolCallID
		case "name":
			bit, dst = 8, &m.Name
		case "tool_calls":
			if !s.first(&seen, 16, '[') {
				usual = false
				return s.value()
			}
			var err error
			m.ToolCalls, usual, err = d.usualToolCalls()
			// An empty list is dropped on load: kept, a strict chat API
			// refuses the message.
			usual = usual && len(m.ToolCalls) > 0
			return err
		default:
			var err error
			usual, err = d.extra(&m.Extra, key, "role", "content", "tool_call_id", "name", "tool_calls")
			return err
		}
		var err error
		usual, err = s.stringMember(&seen, bit, dst)
		return err
	})
	if err != nil || !usual || seen&2 == 0 || emptyOmitted(seen, m) {
		// Missing content is normalised to "": not as written.
		return false, err
	}
	switch m.Role = Role(role); m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return false, nil
	}
	return m.Role == RoleAssistant || len(m.ToolCalls) == 0, nil
}

// emptyOmitted reports whether a message read with the keys in seen gave
// tool_call_id or name as "", which encoding omits: not as written.
func emptyOmitted(seen int, m *Message) bool {
	return seen&4 != 0 && m.ToolCallID == "" || seen&8 != 0 && m.Name == ""
}

// extra reads the value of an unknown key into extra. A second one of the
// same key is not the usual shape, nor is a key that is one of fields in
// another case, which encoding drops (see MarshalWithExtra).
func (d *decoder) extra(extra *map[string]json.RawMessage, key string, fields ...string) (bool, error) {
	_, dup := (*extra)[key]
	if dup || slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, key) }) {
		return false, d.s.value()
	}
	raw, err := d.s.skip()
	if err != nil {
		return false, err
	}
	if *extra == nil {
		*extra = map[string]json.RawMessage{}
	}
	(*extra)[key] = bytes.Clone(raw)
	return true, nil
}

// usualToolCalls reads a tool_calls array whose every call is usable.
func (d *decoder) usualToolCalls() ([]ToolCall, bool, error) {
	s := &d.s
	var calls []ToolCall
	usual := true
	err := s.array(func(int) error {
		if !usual || s.peek() != '{' {
			usual = false
			return s.value()
		}
		var c ToolCall
		var err error
		if usual, err = d.usualToolCall(&c); err != nil || !usual {
			return err
		}
		if slices.ContainsFunc(calls, func(o ToolCall) bool { return o.ID == c.ID }) {
			usual = false
			return nil
		}
		calls = append(calls, c)
		return nil
	})
	return calls, usual, err
}

func (d *decoder) usualToolCall(c *ToolCall) (bool, error) {
	s := &d.s
	usual := true
	seen := 0
	err := s.object(func(key string, _ bool) error {
		if !usual {
			return s.value()
		}
		var bit int
		var dst *string
		switch key {
		case "id":
			bit, dst = 1, &c.ID
		case "type":
			bit, dst = 2, &c.Type
		case "function":
			if !s.first(&seen, 4, '{') {
				usual = false
				return s.value()
			}
			var err error
			usual, err = d.usualFunction(&c.Function)
			return err
		default:
			var err error
			usual, err = d.extra(&c.Extra, key, "id", "type", "function")
			return err
		}
		var err error
		usual, err = s.stringMember(&seen, bit, dst)
		return err
	})
	// A missing or empty type is normalised to "function": not as written.
	return usual && seen&4 != 0 && c.ID != "" && c.Type == "function" && c.Function.Name != "", err
}

func (d *decoder) usualFunction(fn *FunctionCall) (bool, error) {
	s := &d.s
	usual := true
	seen := 0
	err := s.object(func(key string, _ bool) error {
		var bit int
		var dst *string
		switch key {
		case "name":
			bit, dst = 1, &fn.Name
		case "arguments":
			bit, dst = 2, &fn.Arguments
		default:
			// Dropped, as the general decoder drops them: not as written.
			usual = false
			return s.value()
		}
		if !usual {
			return s.value()
		}
		var err error
		usual, err = s.stringMember(&seen, bit, dst)
		return err
	})
	// Missing arguments are normalised to "": not as written.
	return usual && seen == 3, err
}

// first reports whether the value at pos starts with c and its key, bit in
// seen, comes for the first time, and marks the key seen.
func (s *scanner) first(seen *int, bit int, c byte) bool {
	if *seen&bit != 0 || s.peek() != c {
		return false
	}
	*seen |= bit
	return true
}

// stringMember reads the string value of a key, bit in seen, into dst. A
// key that comes again or a value that is not a string is read past, and
// reported as not the usual shape.
func (s *scanner) stringMember(seen *int, bit int, dst *string) (bool, error) {
	if !s.first(seen, bit, '"') {
		return false, s.value()
	}
	var err error
	*dst, err = s.text()
	return true, err
}

// replaceInvalidUTF8 returns a copy of data in which every byte that is not
// part of valid UTF-8 is U+FFFD, as encoding/json decodes it inside a
// string, and the offsets of the replacements in the copy. Outside a string
// such a byte was a syntax error and still is.
func replaceInvalidUTF8(data []byte) ([]byte, []int) {
	out := make([]byte, 0, len(data)+64)
	var fixed []int
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			out = append(out, data[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			fixed = append(fixed, len(out))
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out, fixed
}

// parseTime reads an RFC 3339 time with a zone, whose year stays within
// 0000 to 9999 in UTC, as it must to be written back.
func parseTime(key, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time with a zone", key, s)
	}
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("%s: %q falls outside the years 0000 to 9999 in UTC", key, s)
	}
	return t, nil
}
