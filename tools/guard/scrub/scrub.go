// Package scrub finds known values in text that goes to a model and
// replaces each by its token: the second layer of masking, which does not
// read SQL. A Set is built from the distinct values of the masked columns;
// ReplaceText and ReplaceJSON find them in any case, whatever statement,
// error, plan or catalog row put them there.
package scrub

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coregx/ahocorasick"
)

// MinRunes is the shortest value, in characters, that a Set looks for. A
// shorter value ("a", "NY", "42") is found inside ordinary words and
// numbers everywhere, so scrubbing it would blank the text without
// keeping anything that matters: such values rely on the statement rule
// alone.
const MinRunes = 4

// prefixLen is how many bytes of each value the automaton holds. A longer
// value is found by its first bytes and then compared whole, which keeps
// the automaton small: its states grow with the bytes it holds.
const prefixLen = 6

// Value is one value to find: Text is how it reads in text, Column and
// Raw are for the caller's token.
type Value struct {
	Column string
	Text   string
	Raw    any
}

// form is one way a value reads in text: as it is, or inside a JSON
// string (escaped, with or without HTML escapes).
type form struct {
	low   string // lower case
	value int    // index in Set.values
	json  bool   // may be found inside a JSON string
	plain bool   // may be found in plain text
}

// Set finds the values it was built from. Its methods are safe for
// concurrent use; a nil *Set finds nothing.
type Set struct {
	values []Value
	forms  []form
	ac     *ahocorasick.Automaton
	// byPrefix lists, per pattern of the automaton, the forms that start
	// with it.
	byPrefix [][]int
	// numbers finds a value that is a JSON number literal by its text.
	numbers map[string]int
}

// New builds the Set of values, leaving out those shorter than MinRunes
// characters. It returns nil when none is left.
func New(values []Value) *Set {
	s := &Set{numbers: map[string]int{}}
	seen := map[string]bool{}
	prefixes := map[string]int{}
	var patterns []string
	add := func(low string, v int, inJSON, plain bool) {
		key := low
		if inJSON && !plain {
			key = "\x00" + low
		}
		if seen[key] {
			return
		}
		seen[key] = true
		p := fold(low[:min(prefixLen, len(low))])
		id, ok := prefixes[p]
		if !ok {
			id = len(patterns)
			prefixes[p] = id
			patterns = append(patterns, p)
			s.byPrefix = append(s.byPrefix, nil)
		}
		s.byPrefix[id] = append(s.byPrefix[id], len(s.forms))
		s.forms = append(s.forms, form{low: low, value: v, json: inJSON, plain: plain})
	}
	for _, v := range values {
		if utf8.RuneCountInString(strings.TrimSpace(v.Text)) < MinRunes {
			continue
		}
		i := len(s.values)
		s.values = append(s.values, v)
		if t := strings.TrimSpace(v.Text); t != v.Text {
			// A text may show the value trimmed, as a CSV or a
			// message does.
			low, _ := lower(t)
			add(string(low), i, jsonEscape(t, false) == t, true)
		}
		low, _ := lower(v.Text)
		lowStr := string(low)
		esc, escHTML := jsonEscape(v.Text, false), jsonEscape(v.Text, true)
		add(lowStr, i, esc == v.Text, true)
		if esc != v.Text {
			l, _ := lower(esc)
			add(string(l), i, true, false)
		}
		if escHTML != esc {
			l, _ := lower(escHTML)
			add(string(l), i, true, false)
		}
		if isNumber(v.Text) {
			s.numbers[lowStr] = i
		}
	}
	if len(patterns) == 0 {
		return nil
	}
	ac, err := ahocorasick.NewBuilder().AddStrings(patterns).Build()
	if err != nil {
		return nil // only for no or empty patterns, which New never adds
	}
	s.ac = ac
	return s
}

// Len is the number of values the Set looks for.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.values)
}

// Value returns the i-th value of the Set, as a Match names it.
func (s *Set) Value(i int) Value { return s.values[i] }

// Match is a value found in a text: text[Start:End] is it, in some case.
type Match struct {
	Start, End int
	Value      int // index for Value
}

// find returns the matches in text, in order and apart, the longest at
// each place, skipping the tokens already in it that issued knows;
// inJSON says which forms count.
func (s *Set) find(text string, inJSON bool, issued func(string) bool) []Match {
	if s == nil || len(text) < 4 {
		return nil
	}
	low, orig := lower(text)
	hits := s.ac.FindAllOverlapping(foldBytes(low))
	if len(hits) == 0 {
		return nil
	}
	var found []Match
	for _, h := range hits {
		for _, f := range s.byPrefix[h.PatternID] {
			fm := &s.forms[f]
			if inJSON && !fm.json || !inJSON && !fm.plain || !hasPrefixAt(low, h.Start, fm.low) {
				continue
			}
			found = append(found, Match{Start: h.Start, End: h.Start + len(fm.low), Value: fm.value})
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	tokens := tokenSpans(low, issued)
	out := found[:0]
	end := 0
	for _, m := range found {
		if m.Start < end || overlaps(tokens, m) {
			continue
		}
		out = append(out, m)
		end = m.End
	}
	if orig != nil {
		for i := range out {
			out[i].Start, out[i].End = orig[out[i].Start], orig[out[i].End]
		}
	}
	return out
}

func hasPrefixAt(low []byte, at int, p string) bool {
	return len(low)-at >= len(p) && string(low[at:at+len(p)]) == p
}

// ReplaceText returns text with every value found replaced by token(i),
// i its index for Value. A value inside a token that issued reports as
// issued by the caller stays: a token's hex digits may spell a short
// value. issued may be nil.
func (s *Set) ReplaceText(text string, token func(i int) string, issued func(token string) bool) string {
	ms := s.find(text, false, issued)
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m.Start])
		b.WriteString(token(m.Value))
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String()
}

// ReplaceJSON returns a JSON text with every value found inside a string
// replaced by token(i), and every number that is a value replaced by its
// token as a string; the result is still JSON. token must return text
// that needs no JSON escape; issued is as for ReplaceText. Outside strings and numbers (true, null, the
// punctuation) nothing is a value.
func (s *Set) ReplaceJSON(text string, token func(i int) string, issued func(token string) bool) string {
	ms := s.find(text, true, issued)
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	last, pos := 0, 0
	inString, escaped := false, false
	for _, m := range ms {
		// Walk the JSON up to the match to know whether it starts in
		// a string.
		for ; pos < m.Start; pos++ {
			c := text[pos]
			switch {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			}
		}
		switch {
		case inString && !escaped:
			b.WriteString(text[last:m.Start])
			b.WriteString(token(m.Value))
			last = m.End
		case !inString && wholeNumber(text, m):
			if i, ok := s.numbers[strings.ToLower(text[m.Start:m.End])]; ok {
				b.WriteString(text[last:m.Start])
				b.WriteString(`"` + token(i) + `"`)
				last = m.End
			}
		}
	}
	b.WriteString(text[last:])
	return b.String()
}

// wholeNumber reports whether text[m.Start:m.End] is a whole number
// literal of a JSON text.
func wholeNumber(text string, m Match) bool {
	if !isNumber(text[m.Start:m.End]) {
		return false
	}
	numChar := func(c byte) bool { return c >= '0' && c <= '9' || strings.IndexByte("+-.eE", c) >= 0 }
	return (m.Start == 0 || !numChar(text[m.Start-1])) && (m.End == len(text) || !numChar(text[m.End]))
}

// isNumber reports whether s reads as a JSON number.
func isNumber(s string) bool {
	if s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// tokenSpans returns where the tokens of low are that issued says were
// issued: <masked:label:hex>. A text that only looks like one, such as
// '<masked:x:' || ssn || '>', is scanned as any other.
func tokenSpans(low []byte, issued func(token string) bool) [][2]int {
	if issued == nil {
		return nil
	}
	var spans [][2]int
	text := string(low)
	for at := 0; ; {
		i := strings.Index(text[at:], "<masked:")
		if i < 0 {
			return spans
		}
		start := at + i
		at = start + 1
		if m := tokenShape.FindString(text[start:]); m != "" && issued(m) {
			spans = append(spans, [2]int{start, start + len(m)})
			at = start + len(m)
		}
	}
}

// tokenShape is the shape of a token at the start of a text.
var tokenShape = regexp.MustCompile(`^<masked:[a-z0-9_]*:[0-9a-f]+>`)

func overlaps(spans [][2]int, m Match) bool {
	for _, s := range spans {
		if m.Start < s[1] && s[0] < m.End {
			return true
		}
	}
	return false
}

// lower returns s in lower case. When a character's lower case takes
// another number of bytes, orig maps each byte offset of the result (and
// its end) to the offset in s; else orig is nil and offsets are equal.
func lower(s string) (low []byte, orig []int) {
	low = make([]byte, 0, len(s))
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low = append(low, c)
		}
		return low, nil
	}
	same := true
	for i, r := range s {
		l := unicode.ToLower(r)
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(s[i:])
			low = append(low, s[i:i+size]...)
			continue
		}
		if utf8.RuneLen(l) != size {
			same = false
		}
		low = utf8.AppendRune(low, l)
	}
	if same {
		return low, nil
	}
	low = low[:0]
	for i, r := range s {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(s[i:])
			for k := range size {
				low = append(low, s[i+k])
				orig = append(orig, i+k)
			}
			continue
		}
		n := len(low)
		low = utf8.AppendRune(low, unicode.ToLower(r))
		for range len(low) - n {
			orig = append(orig, i)
		}
	}
	orig = append(orig, len(s))
	return low, orig
}

// fold maps a byte to one of 32 classes: the automaton only proposes
// places, which are then compared byte for byte, so fewer classes keep it
// small at the price of a few more places to compare.
func fold(s string) string { return string(foldBytes([]byte(s))) }

func foldBytes(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = c&0x1f | 0x40
	}
	return out
}

// jsonEscape is s as it reads inside a JSON string that Go's encoder
// wrote, with or without HTML escapes.
func jsonEscape(s string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
