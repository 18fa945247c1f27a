package llm

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeChunk reads one stream event into c. An answer streams hundreds of
// chunks, nearly all of them a piece of text, and encoding/json spends a
// few microseconds on each: the usual chunk is read by fastChunk instead,
// and any other by encoding/json, with the same result.
func decodeChunk(raw []byte, c *chunk) error {
	if fastChunk(raw, c) {
		return nil
	}
	*c = chunk{}
	return json.Unmarshal(raw, c)
}

// plainText returns the text of an event that is a piece of text of choice
// 0 and nothing else the reply reads: no tool calls, finish reason, error,
// whole message or other choice. Its text has no escapes. Events with a
// role or usage are left alone too, though the reply reads neither: they
// mark a stream's start and end.
func plainText(raw []byte) (string, bool) {
	var c chunk
	if !fastChunk(raw, &c) || len(c.Choices) != 1 ||
		bytes.Contains(raw, []byte(`"role"`)) || bytes.Contains(raw, []byte(`"usage"`)) {
		return "", false
	}
	ch := c.Choices[0]
	ok := ch.Index == 0 && ch.Delta.Content != "" && ch.Message.Content == "" && ch.FinishReason == "" &&
		ch.Delta.ReasoningContent == "" && ch.Delta.Reasoning == "" &&
		ch.Message.ReasoningContent == "" && ch.Message.Reasoning == ""
	return string(ch.Delta.Content), ok
}

// fastChunk reads a chunk of valid JSON whose choices hold only an index, text
// content and reasoning (strings with no escapes, or null) in delta or
// message, and a finish reason that is null or a string without escapes;
// other keys it skips, as
// encoding/json does. It reports false for anything else: an error, tool
// calls, citations, a key that differs from a known one only in case (encoding/json
// takes it for the known one), a key given twice, content in parts.
func fastChunk(raw []byte, c *chunk) bool {
	s := scan{data: raw}
	seen := 0
	for first := true; s.next('{', '}', &first); {
		key := s.key()
		switch {
		case string(key) == "choices" && seen&1 == 0:
			seen |= 1
			c.Choices = make([]choice, 0, 1) // not nil, as from encoding/json
			for first := true; s.next('[', ']', &first); {
				c.Choices = append(c.Choices, choice{})
				s.choice(&c.Choices[len(c.Choices)-1])
			}
		case string(key) == "object" && seen&2 == 0:
			seen |= 2
			v, ok := s.str()
			c.Object = string(v)
			s.bad = s.bad || !ok || c.Object == "error"
		case foldsTo(key, "choices", "object", "error", "citations"):
			return false
		default:
			s.skip()
		}
	}
	s.space()
	return !s.bad && s.i == len(s.data)
}

func (s *scan) choice(ch *choice) {
	seen := 0
	for first := true; s.next('{', '}', &first); {
		key := s.key()
		switch {
		case string(key) == "index" && seen&1 == 0:
			seen |= 1
			s.index(&ch.Index)
		case string(key) == "delta" && seen&2 == 0:
			seen |= 2
			s.delta(&ch.Delta)
		case string(key) == "message" && seen&4 == 0:
			seen |= 4
			s.delta(&ch.Message)
		case string(key) == "finish_reason" && seen&8 == 0:
			seen |= 8
			if !s.null() {
				v, ok := s.str()
				ch.FinishReason = finish(v)
				s.bad = s.bad || !ok
			}
		case foldsTo(key, "index", "delta", "message", "finish_reason"):
			s.bad = true
		default:
			s.skip()
		}
	}
}

func (s *scan) delta(d *delta) {
	if s.null() {
		return
	}
	seen := 0
	for first := true; s.next('{', '}', &first); {
		key := s.key()
		switch {
		case string(key) == "content" && seen&1 == 0:
			seen |= 1
			s.text(&d.Content)
		case string(key) == "reasoning_content" && seen&2 == 0:
			seen |= 2
			s.text(&d.ReasoningContent)
		case string(key) == "reasoning" && seen&4 == 0:
			seen |= 4
			s.text(&d.Reasoning)
		case foldsTo(key, "content", "reasoning_content", "reasoning", "tool_calls"):
			s.bad = true
		default:
			s.skip()
		}
	}
}

// text reads a piece of text: a string without escapes, or null.
func (s *scan) text(c *content) {
	if !s.null() {
		v, ok := s.str()
		*c = content(v)
		s.bad = s.bad || !ok
	}
}

// foldsTo reports whether key is one of names under encoding/json's
// case-insensitive match.
func foldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// scan walks the JSON text of a chunk, checking it as it goes: whatever
// it accepts, json.Valid accepts too.
type scan struct {
	data  []byte
	i     int
	bad   bool // the text is not valid JSON of the shape fastChunk reads
	depth int  // of the value skip is in
}

func (s *scan) space() {
	for s.i < len(s.data) && (s.data[s.i] == ' ' || s.data[s.i] == '\t' || s.data[s.i] == '\n' || s.data[s.i] == '\r') {
		s.i++
	}
}

// consume skips c, after any space, and reports whether it was there.
func (s *scan) consume(c byte) bool {
	s.space()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scan) null() bool {
	s.space()
	if bytes.HasPrefix(s.data[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// next steps through the members of an object or the elements of an
// array: at the first call it enters it at open, and at each call it
// reports whether a member or an element follows, having passed the comma
// before it, or the container has ended. Anything unexpected sets bad and
// ends the container.
func (s *scan) next(open, close byte, first *bool) bool {
	if s.bad {
		return false
	}
	if *first {
		*first = false
		if !s.consume(open) {
			s.bad = true
			return false
		}
		return !s.consume(close)
	}
	if s.consume(close) {
		return false
	}
	if !s.consume(',') {
		s.bad = true
		return false
	}
	return true
}

// key reads a member's key and the colon after it.
func (s *scan) key() []byte {
	k, ok := s.str()
	if !ok || !s.consume(':') {
		s.bad = true
	}
	return k
}

// str reads a string without escapes in valid UTF-8; it reports false for
// any other value. Keys and pieces of text are short: one loop over the
// bytes beats calls to bytes.IndexByte and utf8.Valid.
func (s *scan) str() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start, ascii := s.i, true
	for ; s.i < len(s.data); s.i++ {
		switch c := s.data[s.i]; {
		case c == '"':
			v := s.data[start:s.i]
			s.i++
			return v, ascii || utf8.Valid(v)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// index reads a small non-negative integer: digits, and no fraction or
// exponent after them.
func (s *scan) index(n *int) {
	if !s.digits(n) {
		s.bad = true
	}
}

func (s *scan) digits(n *int) bool {
	s.space()
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		if s.i-start == 9 {
			return false
		}
		*n = *n*10 + int(s.data[s.i]-'0')
		s.i++
	}
	if s.i == start || s.i == len(s.data) || (s.data[start] == '0' && s.i-start > 1) {
		return false
	}
	c := s.data[s.i]
	return c != '.' && c != 'e' && c != 'E'
}

// skip passes over one value, checking it as json.Valid would.
func (s *scan) skip() {
	s.space()
	if s.i >= len(s.data) || s.depth >= maxDepth {
		s.bad = true
		return
	}
	s.depth++
	defer func() { s.depth-- }()
	switch s.data[s.i] {
	case '"':
		s.skipString()
	case '{':
		for first := true; s.next('{', '}', &first); {
			s.key()
			s.skip()
		}
	case '[':
		for first := true; s.next('[', ']', &first); {
			s.skip()
		}
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// maxDepth bounds the nesting fastChunk reads; encoding/json, which reads
// anything deeper, has a bound of its own.
const maxDepth = 100

func (s *scan) literal(lit string) {
	if !bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		s.bad = true
		return
	}
	s.i += len(lit)
}

// skipString passes over a string: no control characters, and only the
// escapes JSON has.
func (s *scan) skipString() {
	s.i++ // the opening quote
	for s.i < len(s.data) {
		c := s.data[s.i]
		s.i++
		switch {
		case c == '"':
			return
		case c < 0x20:
			s.bad = true
			return
		case c == '\\':
			if s.i >= len(s.data) {
				s.bad = true
				return
			}
			e := s.data[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.data) || !isHex(s.data[s.i:s.i+4]) {
					s.bad = true
					return
				}
				s.i += 4
			default:
				s.bad = true
				return
			}
		}
	}
	s.bad = true // no closing quote
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number passes over a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) number() {
	if s.i < len(s.data) && s.data[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.data) && s.data[s.i] == '0':
		s.i++
	case s.runOfDigits() == 0:
		s.bad = true
		return
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.runOfDigits() == 0 {
			s.bad = true
			return
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.runOfDigits() == 0 {
			s.bad = true
		}
	}
}

func (s *scan) runOfDigits() int {
	start := s.i
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
