package guard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// maskHexLen is the number of hex digits of a token's HMAC: 48 bits, so
// that two values of one session share a token only by a rare collision,
// which Masker detects and resolves with a longer token.
const maskHexLen = 12

// maxMaskedValues bounds the values a Masker remembers to turn tokens back
// into values; a token issued after that is refused in a statement.
const maxMaskedValues = 100_000

// Masker hides the values of a source's masked columns (sources.yaml's
// mask and mask_pattern) from the model: each value becomes a token,
// <masked:email:3f2a91c04d7e>, the HMAC of the value under a key made for
// one session, so that equal values have equal tokens within the session
// (grouping and counting still work) and different tokens in another.
//
// Which result columns are masked is decided from the result's column
// names and the statement's text, read with the classifier's lexer
// (string literals and comments skipped), as a result has no reliable
// origin per column. A name is masked when, in any case, it is the column
// part of a mask entry of any table of the source, or matches a
// mask_pattern; the refs of a statement are its names that are masked
// (as identifiers, quoted or not, qualified or not) and its string
// literals that are tokens (whose values are bound to the statement).
//
//   - A result column whose name is masked is masked (this alone covers
//     SELECT *).
//   - A star inside an expression (row_to_json(c.*), c.*::text) is a
//     ref, as its columns are unknown; so is, on PostgreSQL, a possible
//     whole-row reference: a name the statement gives a table in FROM or
//     JOIN (its name or alias), used unqualified and unqualifying
//     elsewhere (SELECT c FROM customers c, row_to_json(c)), and so is
//     the alias of a derived table or table function, at any depth,
//     whose output can carry a masked value (its parentheses hold a ref,
//     a star or TABLE: (SELECT * FROM customers) x, LATERAL (SELECT c.*)
//     x), used so (x::text, to_json(x), x > ROW(...)).
//   - A star or TABLE that is the output of a nested query other than a
//     derived table, a CTE's body or EXISTS (a scalar subquery, IN
//     (...), ARRAY(...)) is a ref: its column's values have no name.
//   - When the statement has UNION, INTERSECT or EXCEPT and a ref, or
//     may rename a column without naming it (a column alias list,
//     t(a, b), on a table, a derived table or a CTE; a star, or TABLE,
//     beside a set operation): every column is masked.
//   - When a ref is inside a nested SELECT (a subquery, a CTE's body):
//     every column is masked except one whose select item in the
//     outermost select list is exactly count(...) [AS name].
//   - Else the outermost select list is split at its top-level commas:
//     with a star item, a ref in an item masks every column (a star's
//     columns cannot be told apart); with as many items as columns,
//     column i is masked when item i holds a ref, unless the item is
//     exactly count(...) (count(DISTINCT email) is a number, not a
//     value); a list that cannot be split so, or a statement that is not
//     a SELECT (UPDATE ... RETURNING), with a ref masks every column.
//
// So a ref only in WHERE, JOIN or ORDER BY of the outermost SELECT masks
// nothing more, while email AS e, upper(email), min(email) and a CTE or
// subquery over email are masked. A statement with MySQL executable
// comments, or one the lexer cannot read, has every column masked, and so
// has one with a column alias list even on unmasked tables (WITH
// RECURSIVE t(n) AS ...): the rule errs towards masking. The error of a
// failed statement that refers to a masked column reaches the model with
// every quoted value in it hidden (redactValues). Not covered: a view or a
// function that returns a masked column under another name, and a value a
// confirmed write copies into a column that is not masked.
//
// A Masker's names follow the source's configuration (SetSource) while
// its key, and so its tokens, stay those of its session. A nil *Masker
// masks nothing.
type Masker struct {
	Key     []byte
	dialect sqltext.Dialect

	mu       sync.Mutex
	Names    map[string]bool
	patterns []string
	Values   map[string]any // hex part of a token -> the value
}

// NewMasker returns the masker of src for one session, with a key of its
// own; it masks nothing while src masks no column.
func NewMasker(src sessionio.Source) *Masker {
	m := &Masker{Key: make([]byte, 32), dialect: engine.DialectOf(src.Type), Values: map[string]any{}}
	rand.Read(m.Key) // never fails (crypto/rand's documented behaviour since Go 1.24)
	m.SetSource(src)
	return m
}

// SetSource makes m mask the columns src's mask and mask_pattern name
// now, keeping its key and the values it issued tokens for, so that the
// tokens of the session stay valid.
func (m *Masker) SetSource(src sessionio.Source) {
	names := map[string]bool{}
	for _, c := range src.Mask {
		col := c[strings.LastIndexByte(c, '.')+1:]
		names[strings.ToLower(engine.UnquoteIdent(col))] = true
	}
	var patterns []string
	for _, p := range src.MaskPattern {
		patterns = append(patterns, strings.ToLower(p))
	}
	m.mu.Lock()
	m.Names, m.patterns = names, patterns
	m.mu.Unlock()
}

// active reports whether m masks any column.
func (m *Masker) active() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Names) > 0 || len(m.patterns) > 0
}

// Masks reports whether a result column of this name is masked.
func (m *Masker) Masks(column string) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.masksLocked(strings.ToLower(column))
}

func (m *Masker) masksLocked(name string) bool {
	if m.Names[name] {
		return true
	}
	for _, p := range m.patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Token returns the token of v in column; NULL stays NULL, as whether a
// value is missing is not the value.
func (m *Masker) Token(column string, v any) any {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprint(v))
	}
	mac := hmac.New(sha256.New, m.Key)
	mac.Write(data)
	sum := hex.EncodeToString(mac.Sum(nil))
	m.mu.Lock()
	defer m.mu.Unlock()
	h := sum[:maskHexLen]
	for n := maskHexLen; ; n += 4 {
		h = sum[:n]
		old, ok := m.Values[h]
		if !ok || sameValue(old, data) || n+4 > len(sum) {
			if !ok && len(m.Values) < maxMaskedValues {
				m.Values[h] = v
			}
			break
		}
	}
	return "<masked:" + tokenLabel(column) + ":" + h + ">"
}

func sameValue(v any, data []byte) bool {
	old, err := json.Marshal(v)
	return err == nil && string(old) == string(data)
}

// tokenLabel is the column name as a token shows it: lower case letters,
// digits and underscores.
func tokenLabel(column string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(column) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "value"
	}
	return b.String()
}

// maskRows returns a copy of rows with the values of the masked columns
// (masked[i] true) replaced by their tokens, or rows itself when none is.
func (m *Masker) maskRows(columns []string, masked []bool, rows [][]any) [][]any {
	var cols []int
	for i, ok := range masked {
		if ok {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return rows
	}
	out := make([][]any, len(rows))
	for r, row := range rows {
		cp := append([]any(nil), row...)
		for _, i := range cols {
			if i < len(cp) {
				cp[i] = m.Token(columns[i], cp[i])
			}
		}
		out[r] = cp
	}
	return out
}

// ModelView is r.ModelView with the masked columns' values as tokens.
func (m *Masker) ModelView(r *engine.StatementResult) any {
	if !m.active() {
		return r.ModelView()
	}
	if len(r.Warnings) > 0 {
		// A warning may quote a value as an error does ("Truncated
		// incorrect DOUBLE value: 'ann@example.com'").
		cp := *r
		cp.Warnings = make([]string, len(r.Warnings))
		for i, w := range r.Warnings {
			cp.Warnings[i] = RedactValues(w)
		}
		r = &cp
	}
	if r.Status != engine.StatusSuccess {
		// A database quotes the value it could not use in its error
		// (invalid input syntax for type integer: "ann@example.com").
		if r.Error == "" || !m.mentions(r.SQL) {
			return r.ModelView()
		}
		cp := *r
		cp.Error = RedactValues(r.Error)
		return cp.ModelView()
	}
	cp := *r
	masked := m.MaskedColumns(r.SQL, r.Columns)
	cp.Rows = m.maskRows(r.Columns, masked, r.Rows)
	view := cp.ModelView()
	if rows, ok := view.(engine.ModelRows); ok && slices.Contains(masked, true) {
		if why := m.maskReason(r.SQL); why != "" {
			return maskedRows{ModelRows: rows, Masked: why}
		}
	}
	return view
}

// maskedRows is a result whose statement had every column masked, with
// why: the model may rephrase it.
type maskedRows struct {
	engine.ModelRows
	Masked string `json:"masked"`
}

// RedactValues is an error with every value in it hidden: the model
// reads it when the statement may carry a masked column. A value may hold
// the quotes around it (Duplicate entry 'o'brien@x.io' for key 'email')
// and new lines (a value cast as chr(10) || email || chr(10)), so
// everything from the message's first quote to its last of the same kind
// goes, across lines, and a key's value, Key (email)=(...), to the last
// parenthesis. A database also prints some values bare (date out of
// range: 123456789-01-01, time field value out of range: 25:01:01), and a
// value's digits are enough to rebuild it, so every number goes too, and
// every line after the first (a DETAIL or an XML parser's echo of its
// input): a little of the sentence is lost, never a value. The engine's
// codes (Error 1062 (23000): ..., (SQLSTATE 22008)) stay.
func RedactValues(msg string) string {
	if at := strings.Index(msg, ")=("); at >= 0 {
		if end := strings.LastIndexByte(msg, ')'); end > at+2 {
			msg = msg[:at+3] + "<masked>" + msg[end:]
		}
	}
	for _, q := range []byte{'"', '\''} {
		if first, last := strings.IndexByte(msg, q), strings.LastIndexByte(msg, q); first >= 0 && last > first {
			msg = msg[:first+1] + "<masked>" + msg[last:]
		}
	}
	if line, _, more := strings.Cut(msg, "\n"); more {
		msg = line
	}
	prefix, body, suffix := engineCodes(msg)
	return prefix + maskNumbers(body) + suffix
}

// engineCodes splits off a message's MySQL error number and state at its
// start (Error 1062 (23000): ) and PostgreSQL's state at its end
// ( (SQLSTATE 22008)), which are no values.
func engineCodes(msg string) (prefix, body, suffix string) {
	if rest, ok := strings.CutPrefix(msg, "Error "); ok {
		if i := strings.Index(rest, "): "); i > 0 && i < 20 {
			prefix, msg = msg[:len("Error ")+i+3], rest[i+3:]
		}
	}
	if i := strings.LastIndex(msg, " (SQLSTATE "); i >= 0 && strings.HasSuffix(msg, ")") && len(msg)-i <= len(" (SQLSTATE 22008)") {
		msg, suffix = msg[:i], msg[i:]
	}
	return prefix, msg, suffix
}

// maskNumbers replaces each number in s that is not part of a name (int4
// stays), with the punctuation between its digits (123456789-01-01,
// 25:01:01, 3.5), by <masked>.
func maskNumbers(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isDigit(s[i]) || i > 0 && isWordByte(s[i-1]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := i
		for j := i; j < len(s) && (isDigit(s[j]) || strings.IndexByte(".:+-", s[j]) >= 0); j++ {
			if isDigit(s[j]) {
				end = j + 1
			}
		}
		b.WriteString("<masked>")
		i = end
	}
	return b.String()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// TokenPattern finds what looks like a token anywhere in a statement.
var TokenPattern = regexp.MustCompile(`<masked:[a-z0-9_]*:([0-9a-f]+)>`)

// HasToken reports whether sql holds something that looks like a token.
func HasToken(sql string) bool { return strings.Contains(sql, "<masked:") }

// Bind returns sql with each string literal that is exactly a token
// replaced by a placeholder of dialect, and the values to bind to them.
// It refuses, with what the model should do, a token anywhere else (in a
// longer string, a comment, a name), a token this session did not issue,
// and a statement it cannot read with certainty: one with a backslash, a
// dollar sign or a question mark outside its string literals.
func (m *Masker) Bind(sql string, dialect sqltext.Dialect) (string, []any, error) {
	const how = "use a token only as a whole string literal, such as WHERE email = '<masked:email:3f2a91c04d7e>'"
	if m == nil {
		return "", nil, fmt.Errorf("this source masks no column, so %s is not a value it issued", TokenPattern.FindString(sql))
	}
	if strings.ContainsAny(sql, `\$`) {
		return "", nil, fmt.Errorf("a statement with a masked token cannot hold a backslash or a dollar sign; %s", how)
	}
	var b strings.Builder
	var args []any
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'':
			end := i + 1
			for end < len(sql) {
				if sql[end] == '\'' {
					if end+1 < len(sql) && sql[end+1] == '\'' {
						end += 2
						continue
					}
					break
				}
				end++
			}
			if end >= len(sql) {
				return "", nil, fmt.Errorf("the statement has an unterminated string literal")
			}
			lit := sql[i+1 : end]
			if sm := TokenPattern.FindStringSubmatch(lit); sm != nil {
				if sm[0] != lit {
					return "", nil, fmt.Errorf("%s is part of a longer string; %s", sm[0], how)
				}
				v, ok := m.lookup(sm[1])
				if !ok {
					return "", nil, fmt.Errorf("%s was not issued in this conversation (tokens differ between conversations); read the rows again to get this conversation's tokens", lit)
				}
				args = append(args, v)
				b.WriteString(placeholder(dialect, len(args)))
			} else {
				b.WriteString(sql[i : end+1])
			}
			i = end + 1
		case c == '"' || c == '`':
			end := strings.IndexByte(sql[i+1:], c)
			if end < 0 {
				return "", nil, fmt.Errorf("the statement has an unterminated quoted name")
			}
			b.WriteString(sql[i : i+end+2])
			i += end + 2
		case strings.HasPrefix(sql[i:], "--") || c == '#' && dialect == sqltext.DialectMySQL:
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql) - i
			}
			b.WriteString(sql[i : i+end])
			i += end
		case strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return "", nil, fmt.Errorf("the statement has an unterminated comment")
			}
			b.WriteString(sql[i : i+end+4])
			i += end + 4
		case c == '?':
			return "", nil, fmt.Errorf("a statement with a masked token cannot hold a ? outside string literals; %s", how)
		case c == '<' && strings.HasPrefix(sql[i:], "<masked:"):
			return "", nil, fmt.Errorf("a masked token outside a string literal; %s", how)
		default:
			b.WriteByte(c)
			i++
		}
	}
	if strings.Contains(b.String(), "<masked:") {
		return "", nil, fmt.Errorf("a masked token in a name or a comment; %s", how)
	}
	return b.String(), args, nil
}

func (m *Masker) lookup(h string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.Values[h]
	return v, ok
}

func placeholder(d sqltext.Dialect, n int) string {
	if d == sqltext.DialectPostgres {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// BoundValues returns the tokens that stand for values in sql under ctx
// (withBound), each once, with their values as text: a string as it is,
// anything else as JSON, as the editors show result rows.
func BoundValues(ctx context.Context, sql string) []MaskedValue {
	b, ok := ctx.Value(engine.BoundKey{}).(engine.Bound)
	if !ok || b.SQL != sql || len(b.Tokens) != len(b.Args) {
		return nil
	}
	var out []MaskedValue
	seen := map[string]bool{}
	for i, tok := range b.Tokens {
		if seen[tok] {
			continue
		}
		seen[tok] = true
		text, ok := b.Args[i].(string)
		if !ok {
			data, _ := json.Marshal(b.Args[i])
			text = string(data)
		}
		out = append(out, MaskedValue{Token: tok, Value: text})
	}
	return out
}
