package sessionio

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// errSyntax marks a document that is not valid JSON. The scanner does not
// describe the fault: Decode asks encoding/json for its description, so that
// the error reads as it always did.
var errSyntax = errors.New("not valid JSON")

// maxDepth is encoding/json's nesting limit, which the CLI reads with.
const maxDepth = 10000

// scanner reads a JSON document in place, one value at a time, validating
// as encoding/json does. It is the single pass behind Decode: the elements
// of the large arrays are decoded while they are checked, instead of the
// document being validated and decoded again at each level. It beat the
// libraries measured for this (docs/performance.md).
type scanner struct {
	data  []byte
	pos   int
	depth int
	buf   []byte // text's unescaped bytes, reused from string to string
}

// special marks the bytes that end a run of plain string bytes.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// consume skips whitespace and then c.
func (s *scanner) consume(c byte) error {
	if s.peek() != c {
		return errSyntax
	}
	s.pos++
	return nil
}

// str reads a string at pos and returns its body between the quotes, and
// whether that holds escapes.
func (s *scanner) str() (body []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, errSyntax
	}
	s.pos++
	start := s.pos
	data := s.data
	for i := start; i < len(data); {
		if i+8 <= len(data) {
			// Eight bytes at a time to the next special one.
			if k := firstSpecial(binary.LittleEndian.Uint64(data[i:])); k > 0 {
				i += k
				continue
			}
		}
		c := data[i]
		if !special[c] {
			i++
			continue
		}
		switch c {
		case '"':
			s.pos = i + 1
			return data[start:i], escaped, nil
		case '\\':
			escaped = true
			if i+1 >= len(data) {
				return nil, false, errSyntax
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex4(data[i+2:i+6]) {
					return nil, false, errSyntax
				}
				i += 6
			default:
				return nil, false, errSyntax
			}
		default: // a control character
			return nil, false, errSyntax
		}
	}
	return nil, false, errSyntax
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// text reads a string and returns its value. A string with escapes is
// checked and unescaped in the same pass, as str and unescape would: tool
// results hold an escaped quote every few bytes, and reading each byte
// once instead of twice is most of what a load costs.
func (s *scanner) text() (string, error) {
	if s.peek() != '"' {
		return "", errSyntax
	}
	data := s.data
	start := s.pos + 1
	i := start
	for i < len(data) {
		if i+8 <= len(data) {
			if k := firstSpecial(binary.LittleEndian.Uint64(data[i:])); k > 0 {
				i += k
				continue
			}
		}
		if !special[data[i]] {
			i++
			continue
		}
		break
	}
	if i < len(data) && data[i] == '"' {
		s.pos = i + 1
		return string(data[start:i]), nil
	}
	if i >= len(data) || data[i] != '\\' {
		return "", errSyntax
	}
	buf := append(s.buf[:0], data[start:i]...)
	for i < len(data) {
		if i+8 <= len(data) {
			// Eight bytes at a time to the next special one, written
			// whole: the bytes after it are written again, and a copy
			// call per run of a few bytes would cost more than them.
			x := binary.LittleEndian.Uint64(data[i:])
			if k := firstSpecial(x); k > 0 {
				buf = slices.Grow(buf, 8)
				binary.LittleEndian.PutUint64(buf[len(buf):len(buf)+8], x)
				buf = buf[:len(buf)+k]
				i += k
				continue
			}
		}
		c := data[i]
		if !special[c] {
			buf = append(buf, c)
			i++
			continue
		}
		switch c {
		case '"':
			s.pos = i + 1
			s.buf = buf
			return string(buf), nil
		case '\\':
			if i+1 >= len(data) {
				return "", errSyntax
			}
			e := data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if i+4 > len(data) || !isHex4(data[i:i+4]) {
					return "", errSyntax
				}
				r := hex4(data[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					// A second escape that is not four hex digits is
					// an error the loop finds next.
					if i+6 <= len(data) && data[i] == '\\' && data[i+1] == 'u' && isHex4(data[i+2:i+6]) {
						r2 = hex4(data[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
						r = dec
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", errSyntax
			}
		default: // a control character
			return "", errSyntax
		}
	}
	return "", errSyntax
}

// unescape decodes the body of a valid JSON string as encoding/json does,
// a lone surrogate becoming U+FFFD. Tool results are JSON text with an
// escaped quote every few bytes, so it copies byte by byte into one
// buffer rather than a run at a time: a copy call per run of a few bytes
// cost more than the bytes.
func unescape(body []byte) string {
	buf := make([]byte, len(body)) // never shorter
	n := 0
	for i := 0; i < len(body); {
		if i+8 <= len(body) {
			// Eight bytes at a time, up to the next backslash: the bytes
			// after it are written again.
			x := binary.LittleEndian.Uint64(body[i:])
			binary.LittleEndian.PutUint64(buf[n:], x)
			if k := firstByte(x, '\\'); k > 0 {
				i += k
				n += k
				continue
			}
		}
		c := body[i]
		if c != '\\' {
			buf[n] = c
			n++
			i++
			continue
		}
		c = body[i+1]
		i += 2
		switch c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			r := hex4(body[i:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2 = hex4(body[i+2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					r = dec
					i += 6
				} else {
					r = unicode.ReplacementChar
				}
			}
			// Never longer than its escape: \uXXXX is 6 bytes, a rune
			// at most 3 (4 for a pair, whose escapes are 12).
			n += utf8.EncodeRune(buf[n:], r)
			continue
		}
		buf[n] = c // and '"', '\\', '/' as they are
		n++
	}
	if n == 0 {
		return ""
	}
	// buf is never written again: the string can be its bytes.
	return unsafe.String(&buf[0], n)
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// firstByte returns the index of the first byte c among the eight of x
// (little-endian), or 8.
func firstByte(x uint64, c byte) int {
	y := x ^ ones*uint64(c)
	// The lowest high bit set marks the first zero byte of y exactly; a
	// borrow can only mark bytes after it.
	return bits.TrailingZeros64((y-ones)&^y&highs) / 8
}

// firstSpecial returns the index of the first byte of x that special
// marks (a quote, a backslash, a control character), or 8.
func firstSpecial(x uint64) int {
	q, b := x^ones*'"', x^ones*'\\'
	m := (q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x
	return bits.TrailingZeros64(m&highs) / 8
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skip reads any value and returns its bytes.
func (s *scanner) skip() ([]byte, error) {
	s.ws()
	start := s.pos
	if err := s.value(); err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

func (s *scanner) value() error {
	switch s.peek() {
	case '{':
		return s.object(func(string, bool) error { return s.value() })
	case '[':
		return s.array(func(int) error { return s.value() })
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return errSyntax
	}
	s.pos += len(word)
	return nil
}

func (s *scanner) number() error {
	d, i := s.data, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return errSyntax
	}
	if i < len(d) && d[i] == '.' {
		if i++; i >= len(d) || !isDigit(d[i]) {
			return errSyntax
		}
		i = digits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return errSyntax
		}
		i = digits(d, i)
	}
	s.pos = i
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(d []byte, i int) int {
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}

// object reads an object, calling member at each value with its key. A key
// with escapes is handed over decoded, with escaped set.
func (s *scanner) object(member func(key string, escaped bool) error) error {
	if err := s.open('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		body, escaped, err := s.str()
		if err != nil {
			return err
		}
		key := string(body)
		if escaped {
			key = unescape(body)
		}
		if err := s.consume(':'); err != nil {
			return err
		}
		if err := member(key, escaped); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return errSyntax
		}
	}
}

// array reads an array, calling elem at each element with its index.
func (s *scanner) array(elem func(i int) error) error {
	if err := s.open('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return errSyntax
		}
	}
}

func (s *scanner) open(c byte) error {
	if err := s.consume(c); err != nil {
		return err
	}
	if s.depth++; s.depth > maxDepth {
		return errSyntax
	}
	return nil
}
