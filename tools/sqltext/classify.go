package sqltext

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Dialect is the SQL dialect of a source's engine.
type Dialect string

// The dialects; MySQL also covers MariaDB and seekdb.
const (
	DialectPostgres Dialect = "postgresql"
	DialectMySQL    Dialect = "mysql"
	DialectSQLite   Dialect = "sqlite"
)

// Class says whether a statement may change the database.
type Class int

// The classes of statement.
const (
	ReadOnly Class = iota
	Write
)

// Verdict is what Classify found out about one statement.
type Verdict struct {
	Class Class
	// Kind names the statement, such as "SELECT", "DELETE" or "WITH ... DELETE".
	Kind string
	// Reason says why a write is one, in words for the confirmation dialog.
	Reason string
	// Outside marks a write that is one only because it reaches outside
	// the database (reads a server file, opens another database file, ...):
	// it changes no data, yet asks first as a write does.
	Outside bool
	// unknown marks a statement whose first word the classifier does not
	// know: a write, since it might be one, but perhaps not SQL at all.
	Unknown bool
}

// IsStatement reports whether sql is exactly one statement in dialect d
// that the classifier knows by its first keyword, whether it reads or
// writes: a text a user without a model may mean to run as it is. Text
// that Classify reads as one statement of unknown kind, as it does most
// prose, is not one.
func IsStatement(sql string, d Dialect) bool {
	v, err := Classify(sql, d)
	return err == nil && !v.Unknown
}

// Classify reads one SQL statement in dialect d and says whether it may
// change the database. It is the first of three read-only layers (the
// others: a read-only transaction, and never a path that runs several
// statements), so it is conservative: a statement is ReadOnly only when it
// is a query, SHOW, EXPLAIN without ANALYZE, DESCRIBE or, in SQLite, a
// PRAGMA that only reads, and no word outside strings, comments and quoted
// identifiers makes it a write (DELETE in a WITH, SELECT ... INTO, FOR
// UPDATE, nextval and other functions known to write). Anything it does not
// know is a Write.
//
// Some text reads differently depending on server settings: backslashes
// in strings (MySQL's NO_BACKSLASH_ESCAPES, PostgreSQL's
// standard_conforming_strings), double quotes (MySQL's ANSI_QUOTES) and
// MySQL's executable comments (/*!...*/, /*M!...*/, /*+...*/), whose
// content is code on one server and a comment on another. Classify reads
// the text every such way and returns ReadOnly only when every reading is
// read-only; a reading in which the text is not valid SQL is skipped, since
// the server would refuse it too.
//
// It returns an error, saying what is wrong, for a text that is not
// exactly one statement: empty or only comments, two statements (a single
// trailing semicolon is fine), or a string, quoted identifier or comment
// left open. It also refuses a few MySQL comment forms that servers read
// in different ways, such as a comment inside an executable comment.
func Classify(sql string, d Dialect) (Verdict, error) {
	switch d {
	case DialectPostgres, DialectMySQL, DialectSQLite:
	default:
		return Verdict{}, fmt.Errorf("unknown SQL dialect %q: want %s, %s or %s", d, DialectPostgres, DialectMySQL, DialectSQLite)
	}
	if i := strings.IndexByte(sql, 0); i >= 0 {
		return Verdict{}, fmt.Errorf("the statement has a NUL byte at %s; remove it", sqlPosition(sql, i))
	}
	if !utf8.ValidString(sql) {
		// Servers reject it too; refusing here also rules out charsets in
		// which a multi-byte character hides a quote or a backslash.
		return Verdict{}, errors.New("the statement is not valid UTF-8; send it as UTF-8 text")
	}
	var verdict Verdict
	readings := Readings(sql, d)
	for n, r := range readings {
		toks, regions, err := Lex(sql, d, r)
		if err != nil {
			if n == 0 || IsClassifyError(err, ErrAmbiguous) {
				return Verdict{}, err
			}
			continue // not SQL when read this way: the server would refuse it
		}
		if regions > maxExecComments || regions > 0 && len(readings)<<regions*len(toks) > maxReadingTokens {
			stmt, err := OneStatement(sql, toks, d, "")
			if err != nil {
				return Verdict{}, err
			}
			v := classifyStatement(stmt, d)
			if v.Class == Write {
				return v, nil
			}
			return verdictWrite(v.Kind, fmt.Sprintf("It has %d MySQL executable comments or optimizer hints, too many for a statement of this length to check every way a server may read them.", regions)), nil
		}
		// Each executable comment is code on some servers and a comment
		// on others, independently: try every combination.
		for mask := range 1 << regions {
			first := n == 0 && mask == 0
			how := ""
			if !first {
				how = readingNote(r, mask)
			}
			stmt, err := OneStatement(sql, execCommentsSkipped(toks, mask), d, how)
			if err != nil {
				if first || IsClassifyError(err, errMultiple) {
					return Verdict{}, err
				}
				continue
			}
			v := classifyStatement(stmt, d)
			if first {
				verdict = v
				if v.Class == Write {
					return v, nil
				}
				continue
			}
			if v.Class == Write {
				v.Reason = strings.TrimSuffix(v.Reason, ".") + " (" + how + ")."
				return v, nil
			}
		}
	}
	return verdict, nil
}

// maxExecComments bounds the MySQL executable comments Classify reads both
// ways: n of them make 2^n readings.
const maxExecComments = 8

// maxReadingTokens bounds the tokens Classify reads over the readings of
// MySQL's executable comments, so that its time stays linear in the
// statement's length: readings double with each such comment, and a long
// statement can afford fewer of them.
const maxReadingTokens = 1 << 18

// classifyErrorKind tells apart errors that a reading under unusual server
// settings may ignore from those it must report.
type classifyErrorKind int

const (
	errSyntax    classifyErrorKind = iota // not SQL: the server refuses it too
	errEmpty                              // no statement
	errMultiple                           // more than one statement
	ErrAmbiguous                          // servers read it differently
)

// classifyError is why a text is not one statement Classify can read.
type classifyError struct {
	kind classifyErrorKind
	msg  string
}

func (e *classifyError) Error() string { return e.msg }

func newClassifyError(kind classifyErrorKind, format string, args ...any) error {
	return &classifyError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

func IsClassifyError(err error, kind classifyErrorKind) bool {
	var ce *classifyError
	return errors.As(err, &ce) && ce.kind == kind
}

// sqlReading is one way a server may read the text, set by its settings.
type Reading struct {
	backslashSingle bool   // '...' strings take backslash escapes
	doubleString    bool   // MySQL: "..." is a string, not an identifier
	backslashDouble bool   // MySQL: "..." strings take backslash escapes
	note            string // the settings, for messages: "with sql_mode ANSI_QUOTES"
}

// sqlReadings lists the readings of sql in d, the default one first. Other
// readings only matter when the text has the characters they read
// differently.
func Readings(sql string, d Dialect) []Reading {
	backslash := strings.Contains(sql, `\`)
	switch d {
	case DialectPostgres:
		rs := []Reading{{}}
		if backslash {
			rs = append(rs, Reading{backslashSingle: true, note: "with standard_conforming_strings off"})
		}
		return rs
	case DialectMySQL:
		rs := []Reading{{backslashSingle: true, doubleString: true, backslashDouble: true}}
		double := strings.Contains(sql, `"`)
		if backslash {
			rs = append(rs, Reading{doubleString: true, note: "with sql_mode NO_BACKSLASH_ESCAPES"})
		}
		if double {
			rs = append(rs, Reading{backslashSingle: true, note: "with sql_mode ANSI_QUOTES"})
		}
		if backslash && double {
			rs = append(rs, Reading{note: "with sql_mode ANSI_QUOTES and NO_BACKSLASH_ESCAPES"})
		}
		return rs
	}
	return []Reading{{}}
}

// readingNote says, for messages, which server reads the text as reading r
// with the executable comments in mask skipped.
func readingNote(r Reading, mask int) string {
	var parts []string
	if r.note != "" {
		parts = append(parts, "runs "+r.note)
	}
	if mask != 0 {
		parts = append(parts, "skips some executable comments (/*!...*/, /*M!...*/ or /*+...*/)")
	}
	return "if the server " + strings.Join(parts, " and ")
}

// sqlTokenKind is the kind of a sqlToken.
type sqlTokenKind uint8

const (
	TokWord   sqlTokenKind = iota // keyword or unquoted identifier
	TokQuoted                     // quoted identifier: "x", `x` or [x]
	TokString                     // string literal of any form
	tokNumber                     // digits
	tokParam                      // PostgreSQL's $1
	tokPunct                      // one byte of punctuation or operator
)

// sqlToken is one token of a statement outside comments.
type Token struct {
	Kind sqlTokenKind
	// text is, for words and quoted identifiers, the name folded to upper
	// case; for punctuation the byte.
	Text string
	Pos  int // byte offset in the text
	// region is the number (from 1) of the MySQL executable comment the
	// token is in, 0 outside them.
	region int
	// unicode marks a PostgreSQL U&"..." identifier, whose escapes can
	// spell any name.
	Unicode bool
}

func (t Token) IsWord(w string) bool  { return t.Kind == TokWord && t.Text == w }
func (t Token) IsPunct(p string) bool { return t.Kind == tokPunct && t.Text == p }

// lexSQL splits s into tokens as d reads it under r, dropping whitespace
// and comments. It also returns how many MySQL executable comments it read
// as code; their tokens carry the comment's number.
func Lex(s string, d Dialect, r Reading) ([]Token, int, error) {
	var toks []Token
	region, regions, regionStart := 0, 0, 0
	emit := func(kind sqlTokenKind, text string, pos int) {
		toks = append(toks, Token{Kind: kind, Text: text, Pos: pos, region: region})
	}
	// quoted ends a string or quoted identifier at end; inside an
	// executable comment it must not hold "*/", where a server that skips
	// the comment would end it.
	quoted := func(start, end int, ok bool, what string) error {
		if !ok {
			return newClassifyError(errSyntax, "the %s that starts at %s is not closed; close it, or remove the stray quote", what, sqlPosition(s, start))
		}
		if region > 0 && strings.Contains(s[start:end], "*/") {
			return newClassifyError(ErrAmbiguous, "the %s at %s holds */ inside a MySQL executable comment, which servers read in different ways; move it out of the comment", what, sqlPosition(s, start))
		}
		return nil
	}
	commentInRegion := func(i int) error {
		return newClassifyError(ErrAmbiguous, "a comment starts at %s inside the MySQL executable comment or optimizer hint that starts at %s, which servers read in different ways; remove the inner comment", sqlPosition(s, i), sqlPosition(s, regionStart))
	}

	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case lexSpace(c):
			i++

		case c == '-' && lexAt(s, i+1) == '-':
			if d == DialectMySQL && i+2 < len(s) && s[i+2] > ' ' {
				// MySQL reads -- as a comment only before whitespace or a
				// control character; "1--1" is 1 - (-1).
				if s[i+2] >= 0x7f {
					return nil, 0, newClassifyError(ErrAmbiguous, "MySQL may or may not read the -- at %s as a comment; put a space after it, or write - - for two minus signs", sqlPosition(s, i))
				}
				emit(tokPunct, "-", i)
				i++
				continue
			}
			if region > 0 {
				return nil, 0, commentInRegion(i)
			}
			i = lexLineEnd(s, i, d)

		case c == '#' && d == DialectMySQL:
			if region > 0 {
				return nil, 0, commentInRegion(i)
			}
			i = lexLineEnd(s, i, d)

		case c == '/' && lexAt(s, i+1) == '*':
			if d == DialectMySQL {
				if n, version := lexExecOpener(s, i); n > 0 {
					if region > 0 {
						return nil, 0, commentInRegion(i)
					}
					regions++
					region, regionStart = regions, i
					i += n
					for version && i < len(s) && lexDigit(s[i]) {
						i++ // the server version it is meant for
					}
					continue
				}
				if region > 0 {
					return nil, 0, commentInRegion(i)
				}
			}
			end, ok := lexBlockCommentEnd(s, i, d == DialectPostgres)
			if !ok {
				return nil, 0, newClassifyError(errSyntax, "the comment that starts at %s is not closed; close it with */", sqlPosition(s, i))
			}
			i = end

		case c == '*' && region > 0 && lexAt(s, i+1) == '/':
			region = 0
			i += 2

		case c == '\'':
			end, ok := LexQuoteEnd(s, i, '\'', r.backslashSingle)
			if err := quoted(i, end, ok, "string"); err != nil {
				return nil, 0, err
			}
			emit(TokString, "", i)
			i = end

		case c == '"':
			if d == DialectMySQL && r.doubleString {
				end, ok := LexQuoteEnd(s, i, '"', r.backslashDouble)
				if err := quoted(i, end, ok, "string"); err != nil {
					return nil, 0, err
				}
				emit(TokString, "", i)
				i = end
				continue
			}
			end, ok := LexQuoteEnd(s, i, '"', false)
			if err := quoted(i, end, ok, "quoted identifier"); err != nil {
				return nil, 0, err
			}
			unicode := d == DialectPostgres && len(toks) >= 2 &&
				toks[len(toks)-1].IsPunct("&") && toks[len(toks)-1].Pos == i-1 &&
				toks[len(toks)-2].IsWord("U") && toks[len(toks)-2].Pos == i-2
			emit(TokQuoted, foldName(s[i+1:end-1]), i)
			toks[len(toks)-1].Unicode = unicode
			i = end

		case c == '`' && d != DialectPostgres:
			end, ok := LexQuoteEnd(s, i, '`', false)
			if err := quoted(i, end, ok, "quoted identifier"); err != nil {
				return nil, 0, err
			}
			emit(TokQuoted, foldName(s[i+1:end-1]), i)
			i = end

		case c == '[' && d == DialectSQLite:
			j := strings.IndexByte(s[i+1:], ']')
			end := i + 1 + j + 1
			if err := quoted(i, end, j >= 0, "quoted identifier"); err != nil {
				return nil, 0, err
			}
			emit(TokQuoted, foldName(s[i+1:end-1]), i)
			i = end

		case c == '$' && d == DialectPostgres:
			if lexDigit(lexAt(s, i+1)) {
				j := i + 1
				for j < len(s) && lexDigit(s[j]) {
					j++
				}
				emit(tokParam, s[i:j], i)
				i = j
				continue
			}
			tag := lexDollarTag(s, i)
			if tag == "" {
				emit(tokPunct, "$", i)
				i++
				continue
			}
			j := strings.Index(s[i+len(tag):], tag)
			if j < 0 {
				return nil, 0, newClassifyError(errSyntax, "the dollar-quoted string that starts with %s at %s is not closed; close it with %s", tag, sqlPosition(s, i), tag)
			}
			emit(TokString, "", i)
			i += len(tag) + j + len(tag)

		case lexDigit(c):
			// Only the digits: a server that reads "1into" as 1 INTO
			// must not find INTO hidden in a number.
			j := i
			for j < len(s) && lexDigit(s[j]) {
				j++
			}
			emit(tokNumber, s[i:j], i)
			i = j

		case lexIdentStart(c):
			j := i + 1
			for j < len(s) && lexIdentPart(s[j]) {
				j++
			}
			if d == DialectPostgres && j == i+1 && (c == 'e' || c == 'E') && lexAt(s, j) == '\'' {
				// E'...': backslash escapes whatever the settings.
				end, ok := LexQuoteEnd(s, j, '\'', true)
				if err := quoted(i, end, ok, "string"); err != nil {
					return nil, 0, err
				}
				emit(TokString, "", i)
				i = end
				continue
			}
			emit(TokWord, foldName(s[i:j]), i)
			i = j

		default:
			emit(tokPunct, s[i:i+1], i)
			i++
		}
	}
	if region > 0 {
		return nil, 0, newClassifyError(errSyntax, "the MySQL executable comment that starts at %s is not closed; close it with */", sqlPosition(s, regionStart))
	}
	return toks, regions, nil
}

// lexExecOpener returns the length of the MySQL executable comment or
// optimizer hint opener at s[i] ("/*!", "/*M!", "/*+"), or 0, and whether
// a server version may follow it. /*M! is MariaDB's; lower case is
// accepted too, which can only find more code.
func lexExecOpener(s string, i int) (int, bool) {
	switch {
	case lexAt(s, i+2) == '!':
		return 3, true
	case (lexAt(s, i+2) == 'M' || lexAt(s, i+2) == 'm') && lexAt(s, i+3) == '!':
		return 4, true
	case lexAt(s, i+2) == '+':
		return 3, false
	}
	return 0, false
}

// lexLineEnd returns the end of the line comment at s[i]. PostgreSQL ends
// it at \r too; MySQL and SQLite only at \n, so a \r there must not end it
// early and expose text the server skips.
func lexLineEnd(s string, i int, d Dialect) int {
	for j := i; j < len(s); j++ {
		if s[j] == '\n' || s[j] == '\r' && d == DialectPostgres {
			return j
		}
	}
	return len(s)
}

// lexBlockCommentEnd returns the end of the /* */ comment at s[i]. Only
// PostgreSQL nests them.
func lexBlockCommentEnd(s string, i int, nested bool) (int, bool) {
	depth := 1
	for j := i + 2; j+1 < len(s); {
		switch {
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, true
			}
		case nested && s[j] == '/' && s[j+1] == '*':
			depth++
			j += 2
		default:
			j++
		}
	}
	return 0, false
}

// lexQuoteEnd returns the end of the quoted text at s[i] that ends with q,
// where a doubled q stands for one and, with backslash, a backslash
// escapes the next byte.
func LexQuoteEnd(s string, i int, q byte, backslash bool) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// lexDollarTag returns PostgreSQL's dollar-quote opener at s[i] ("$$" or
// "$tag$"), or "" when s[i] does not open one.
func lexDollarTag(s string, i int) string {
	j := i + 1
	if lexAt(s, j) == '$' {
		return "$$"
	}
	if j >= len(s) || !lexIdentStart(s[j]) {
		return ""
	}
	for j < len(s) && lexIdentStart(s[j]) || j < len(s) && lexDigit(s[j]) {
		j++
	}
	if lexAt(s, j) != '$' {
		return ""
	}
	return s[i : j+1]
}

func lexAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func lexSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func lexDigit(c byte) bool { return '0' <= c && c <= '9' }

// lexIdentStart reports whether c starts a word: every engine takes bytes
// of multi-byte characters as letters.
func lexIdentStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= utf8.RuneSelf
}

func lexIdentPart(c byte) bool { return lexIdentStart(c) || lexDigit(c) || c == '$' }

// foldName folds a name for comparison with keywords and function names.
// Beyond ASCII it also maps letters such as the long s and the Kelvin sign
// to the ASCII letters some servers equate them with.
func foldName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToUpper(strings.ToLower(s))
		}
	}
	return strings.ToUpper(s)
}

// execCommentsSkipped returns toks without the tokens of the executable
// comments whose bit is set in mask.
func execCommentsSkipped(toks []Token, mask int) []Token {
	if mask == 0 {
		return toks
	}
	kept := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.region == 0 || mask&(1<<(t.region-1)) == 0 {
			kept = append(kept, t)
		}
	}
	return kept
}

// oneStatement returns the tokens of the one statement in toks, without a
// trailing semicolon, or an error when there is none or more than one. The
// semicolons inside a trigger's or a routine's body do not count. how
// names the reading for messages.
func OneStatement(s string, toks []Token, d Dialect, how string) ([]Token, error) {
	var inBody map[int]bool
	if hasBody(toks, d) {
		var err error
		if inBody, err = bodySemicolons(s, toks, d); err != nil {
			return nil, err
		}
	}
	for k, t := range toks {
		if !t.IsPunct(";") || inBody[k] {
			continue
		}
		if k == 0 && len(toks) == 1 {
			break
		}
		if k == len(toks)-1 {
			return toks[:k], nil
		}
		at := toks[k+1].Pos
		if k == 0 {
			at = t.Pos
		}
		if how != "" {
			how = " " + how
		}
		return nil, newClassifyError(errMultiple, "more than one statement%s: another one starts at %s (%s); run one statement per call", how, sqlPosition(s, at), sqlExcerpt(s, at))
	}
	if len(toks) == 0 || len(toks) == 1 && toks[0].IsPunct(";") {
		return nil, newClassifyError(errEmpty, "no statement: the text is empty or only comments; send one SQL statement")
	}
	return toks, nil
}

// sqlPosition describes byte offset pos of s as a line and a column, both
// counted from 1, the column in characters.
func sqlPosition(s string, pos int) string {
	line := 1 + strings.Count(s[:pos], "\n")
	col := 1 + utf8.RuneCountInString(s[strings.LastIndexByte(s[:pos], '\n')+1:pos])
	return fmt.Sprintf("line %d, column %d", line, col)
}

// sqlExcerpt quotes the start of s at pos, up to the end of the line.
func sqlExcerpt(s string, pos int) string {
	const limit = 30
	rest := s[pos:]
	if i := strings.IndexAny(rest, "\r\n"); i >= 0 {
		rest = rest[:i]
	}
	if utf8.RuneCountInString(rest) > limit {
		rest = string([]rune(rest)[:limit]) + "..."
	}
	return fmt.Sprintf("%q", rest)
}

func verdictRead(kind string) Verdict { return Verdict{Class: ReadOnly, Kind: kind} }

func verdictWrite(kind, reason string) Verdict {
	return Verdict{Class: Write, Kind: kind, Reason: reason}
}

// classifyStatement classifies the tokens of one statement.
func classifyStatement(toks []Token, d Dialect) Verdict {
	i := 0
	for i < len(toks) && toks[i].IsPunct("(") {
		i++ // (SELECT ...) UNION (SELECT ...)
	}
	if i == len(toks) || toks[i].Kind != TokWord {
		v := verdictWrite("UNKNOWN", "It does not start with a keyword, so it is treated as a write.")
		v.Unknown = true
		return v
	}
	var v Verdict
	switch toks[i].Text {
	case "SELECT", "WITH", "VALUES", "TABLE":
		v = queryVerdict(toks, i)
	case "SHOW":
		v = verdictRead("SHOW")
	case "EXPLAIN", "DESCRIBE", "DESC":
		v = explainVerdict(toks, i, d)
	case "PRAGMA":
		if d != DialectSQLite {
			return writeVerdict(toks, i)
		}
		v = pragmaVerdict(toks, i)
	default:
		return writeVerdict(toks, i)
	}
	if v.Class == Write {
		return v
	}
	return sideEffectVerdict(toks, d, v)
}

// queryVerdict classifies a SELECT, WITH, VALUES or TABLE statement. Any
// word that can make one write counts wherever it is outside quotes: a
// column that is named like a keyword then makes it a write, which quoting
// the name avoids.
func queryVerdict(toks []Token, i int) Verdict {
	lead := toks[i].Text
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		if t.Kind != TokWord {
			continue
		}
		switch t.Text {
		case "INTO":
			if j+1 < len(toks) && (toks[j+1].IsWord("OUTFILE") || toks[j+1].IsWord("DUMPFILE")) {
				kind := lead + " ... INTO " + toks[j+1].Text
				return verdictWrite(kind, kind+" writes the result to a file on the database server.")
			}
			kind := lead + " ... INTO"
			return verdictWrite(kind, kind+" writes the result into a table, a file or variables.")
		case "UPDATE", "SHARE":
			if lock := lockClause(toks, j); lock != "" {
				kind := lead + " ... " + lock
				return verdictWrite(kind, kind+" locks the rows it reads, as a write does.")
			}
			if t.Text == "SHARE" {
				continue
			}
		case "REPLACE":
			if j+1 < len(toks) && toks[j+1].IsPunct("(") {
				continue // the string function
			}
		case "INSERT", "DELETE", "MERGE", "DROP", "CREATE", "ALTER", "TRUNCATE", "GRANT", "REVOKE":
		default:
			continue
		}
		kind := lead + " ... " + t.Text
		if lead == "WITH" && (t.Text == "INSERT" || t.Text == "UPDATE" || t.Text == "DELETE" || t.Text == "MERGE") {
			return verdictWrite(kind, writeReason(t.Text, t.Text))
		}
		return verdictWrite(kind, t.Text+" appears outside quotes, so the statement is treated as a write; quote a column or table named like that.")
	}
	return verdictRead(lead)
}

// lockClause returns the row-locking clause that ends with the UPDATE or
// SHARE at toks[j] ("FOR UPDATE", "LOCK IN SHARE MODE"), or "".
func lockClause(toks []Token, j int) string {
	prev := func(k int) string {
		if j-k >= 0 && toks[j-k].Kind == TokWord {
			return toks[j-k].Text
		}
		return ""
	}
	switch {
	case prev(1) == "FOR":
		return "FOR " + toks[j].Text
	case toks[j].Text == "UPDATE" && prev(1) == "KEY" && prev(2) == "NO" && prev(3) == "FOR":
		return "FOR NO KEY UPDATE"
	case toks[j].Text == "SHARE" && prev(1) == "KEY" && prev(2) == "FOR":
		return "FOR KEY SHARE"
	case toks[j].Text == "SHARE" && prev(1) == "IN" && prev(2) == "LOCK":
		return "LOCK IN SHARE MODE"
	}
	return ""
}

// explainVerdict classifies EXPLAIN, DESCRIBE and DESC. They only plan a
// statement, except with ANALYZE, which runs it (MariaDB's ANALYZE
// statement is a write of its own). ANALYZE anywhere counts. An EXPLAIN of
// an EXPLAIN is followed in a loop, with where ANALYZE last appears found
// once, so that a chain of them costs one pass over the tokens.
func explainVerdict(toks []Token, i int, d Dialect) Verdict {
	lastAnalyze := -1
	for k := len(toks) - 1; k > i; k-- {
		if toks[k].IsWord("ANALYZE") || toks[k].IsWord("ANALYSE") {
			lastAnalyze = k
			break
		}
	}
	lead := toks[i].Text
	kind := lead
	if lastAnalyze > i {
		kind += " ANALYZE"
	}
	for {
		inner := toks[explainOptionsEnd(toks, i):]
		if len(inner) > 0 && inner[0].IsWord("INTO") {
			into := lead + " ... INTO"
			return verdictWrite(into, into+" stores the plan in a variable.")
		}
		if lastAnalyze <= i || len(inner) == 0 {
			return verdictRead(kind)
		}
		k := 0
		for k < len(inner) && inner[k].IsPunct("(") {
			k++
		}
		if k < len(inner) && (inner[k].IsWord("EXPLAIN") || inner[k].IsWord("DESCRIBE") || inner[k].IsWord("DESC")) {
			i = len(toks) - len(inner) + k
			continue
		}
		if v := classifyStatement(inner, d); v.Class == Write {
			w := verdictWrite(kind, kind+" runs the statement it explains: "+v.Reason)
			w.Outside = v.Outside
			return w
		}
		return verdictRead(kind)
	}
}

// explainOptionsEnd returns the index of the first token after the
// options of the EXPLAIN at toks[i]: PostgreSQL's (...), the words of the
// others.
func explainOptionsEnd(toks []Token, i int) int {
	j := i + 1
	if j < len(toks) && toks[j].IsPunct("(") {
		for depth := 0; j < len(toks); {
			switch {
			case toks[j].IsPunct("("):
				depth++
			case toks[j].IsPunct(")"):
				depth--
			}
			j++
			if depth == 0 {
				break
			}
		}
	}
	for ; j < len(toks); j++ {
		t := toks[j]
		if t.IsPunct("=") {
			continue
		}
		if t.Kind != TokWord {
			break
		}
		switch t.Text {
		case "ANALYZE", "ANALYSE", "VERBOSE", "QUERY", "PLAN", "EXTENDED", "PARTITIONS", "FORMAT", "TREE", "JSON", "TRADITIONAL":
			continue
		}
		break
	}
	return j
}

// pragmaVerdict classifies an SQLite PRAGMA: read-only only for a pragma
// on the allowlist, without a value, or with the one argument that names
// what to read ("PRAGMA table_info(t)"). "PRAGMA x = y" and "PRAGMA x(y)"
// of any other pragma set something, and so does an unknown pragma, such
// as optimize or wal_checkpoint.
func pragmaVerdict(toks []Token, i int) Verdict {
	rest := toks[i+1:]
	isName := func(t Token) bool { return t.Kind == TokWord || t.Kind == TokQuoted }
	if len(rest) >= 3 && isName(rest[0]) && rest[1].IsPunct(".") {
		rest = rest[2:] // the schema
	}
	if len(rest) == 0 || !isName(rest[0]) {
		return verdictWrite("PRAGMA", "PRAGMA without a pragma name is not known to be read-only, so it is treated as a write.")
	}
	name, args := rest[0].Text, rest[1:]
	switch {
	case len(args) == 0 && (pragmaReads(name) || pragmaReadsArg(name)):
		return verdictRead("PRAGMA")
	case pragmaReadsArg(name) && pragmaArgument(args):
		return verdictRead("PRAGMA")
	case len(args) > 0:
		return verdictWrite("PRAGMA", fmt.Sprintf("PRAGMA %s with a value changes a setting or the database file.", strings.ToLower(name)))
	}
	return verdictWrite("PRAGMA", fmt.Sprintf("PRAGMA %s is not one of the pragmas known only to read, so it is treated as a write.", strings.ToLower(name)))
}

// pragmaArgument reports whether args is "(x)" with x one name, string or
// number.
func pragmaArgument(args []Token) bool {
	if len(args) < 3 || !args[0].IsPunct("(") || !args[len(args)-1].IsPunct(")") {
		return false
	}
	in := args[1 : len(args)-1]
	if len(in) == 2 && (in[0].IsPunct("-") || in[0].IsPunct("+")) && in[1].Kind == tokNumber {
		return true
	}
	return len(in) == 1 && in[0].Kind != tokPunct
}

// pragmaReads reports whether PRAGMA name, without a value, only reads.
func pragmaReads(name string) bool {
	switch name {
	case "ANALYSIS_LIMIT", "APPLICATION_ID", "AUTO_VACUUM", "AUTOMATIC_INDEX", "BUSY_TIMEOUT",
		"CACHE_SIZE", "CACHE_SPILL", "CELL_SIZE_CHECK", "CHECKPOINT_FULLFSYNC", "COLLATION_LIST",
		"COMPILE_OPTIONS", "DATA_VERSION", "DATABASE_LIST", "DEFER_FOREIGN_KEYS", "ENCODING",
		"FOREIGN_KEYS", "FREELIST_COUNT", "FULLFSYNC", "FUNCTION_LIST", "HARD_HEAP_LIMIT",
		"IGNORE_CHECK_CONSTRAINTS", "JOURNAL_MODE", "JOURNAL_SIZE_LIMIT", "LEGACY_ALTER_TABLE",
		"LOCKING_MODE", "MAX_PAGE_COUNT", "MMAP_SIZE", "MODULE_LIST", "PAGE_COUNT", "PAGE_SIZE",
		"PRAGMA_LIST", "QUERY_ONLY", "READ_UNCOMMITTED", "RECURSIVE_TRIGGERS",
		"REVERSE_UNORDERED_SELECTS", "SCHEMA_VERSION", "SECURE_DELETE", "SOFT_HEAP_LIMIT",
		"SYNCHRONOUS", "TEMP_STORE", "THREADS", "TRUSTED_SCHEMA", "USER_VERSION", "WAL_AUTOCHECKPOINT":
		return true
	}
	return false
}

// pragmaReadsArg reports whether PRAGMA name(x) only reads: x names a
// table, an index or a schema, or limits a check.
func pragmaReadsArg(name string) bool {
	switch name {
	case "FOREIGN_KEY_CHECK", "FOREIGN_KEY_LIST", "INDEX_INFO", "INDEX_LIST", "INDEX_XINFO",
		"INTEGRITY_CHECK", "QUICK_CHECK", "TABLE_INFO", "TABLE_LIST", "TABLE_XINFO":
		return true
	}
	return false
}

// sideEffectVerdict turns read-only verdict v into a write when the
// statement names a function known to change something (a sequence, a
// lock, another session, a file) or to reach outside the database (a
// server file, the network) or, in MySQL, assigns a variable or takes a
// sequence's next value. A name counts wherever it is outside strings,
// quoted or not, called or not: conservative, since a column named nextval
// is rare.
func sideEffectVerdict(toks []Token, d Dialect, v Verdict) Verdict {
	for j, t := range toks {
		if t.Kind != TokWord && t.Kind != TokQuoted {
			if d == DialectMySQL && t.IsPunct(":") && j+1 < len(toks) && toks[j+1].IsPunct("=") {
				kind := v.Kind + " ... :="
				return verdictWrite(kind, ":= assigns a user variable.")
			}
			continue
		}
		if t.Unicode {
			kind := v.Kind + ` ... U&"..."`
			return verdictWrite(kind, `A U&"..." identifier can spell any function name, including one that changes data; write the name out.`)
		}
		if reason := WritingFunction(t.Text, d); reason != "" {
			return verdictWrite(v.Kind+" ... "+t.Text, reason)
		}
		if reason := OutsideFunction(t.Text, d); reason != "" {
			w := verdictWrite(v.Kind+" ... "+t.Text, reason)
			w.Outside = true
			return w
		}
		if d == DialectMySQL && t.IsWord("NEXT") && j+2 < len(toks) && toks[j+1].IsWord("VALUE") && toks[j+2].IsWord("FOR") {
			kind := v.Kind + " ... NEXT VALUE FOR"
			return verdictWrite(kind, "NEXT VALUE FOR advances a sequence.")
		}
	}
	return v
}

// writingFunction returns why calling the function named name (folded)
// changes something in d, or "" when it is not known to. SLEEP and
// pg_sleep are fine: waiting changes nothing.
func WritingFunction(name string, d Dialect) string {

	switch d {
	case DialectPostgres:
		switch name {
		case "NEXTVAL":
			return "nextval advances a sequence."
		case "SETVAL":
			return "setval changes a sequence."
		case "SET_CONFIG":
			return "set_config changes a setting."
		case "PG_TERMINATE_BACKEND":
			return "pg_terminate_backend ends another session."
		case "PG_CANCEL_BACKEND":
			return "pg_cancel_backend cancels another session's statement."
		case "LO_UNLINK", "LO_CREATE", "LO_CREAT", "LO_FROM_BYTEA", "LO_PUT", "LO_TRUNCATE",
			"LO_TRUNCATE64", "LOWRITE":
			return strings.ToLower(name) + " writes large objects."
		case "PG_ADVISORY_LOCK", "PG_ADVISORY_LOCK_SHARED", "PG_ADVISORY_XACT_LOCK",
			"PG_ADVISORY_XACT_LOCK_SHARED", "PG_TRY_ADVISORY_LOCK", "PG_TRY_ADVISORY_LOCK_SHARED",
			"PG_TRY_ADVISORY_XACT_LOCK", "PG_TRY_ADVISORY_XACT_LOCK_SHARED", "PG_ADVISORY_UNLOCK",
			"PG_ADVISORY_UNLOCK_SHARED", "PG_ADVISORY_UNLOCK_ALL":
			return strings.ToLower(name) + " takes or releases an advisory lock."
		case "DBLINK", "DBLINK_EXEC", "DBLINK_SEND_QUERY":
			return strings.ToLower(name) + " runs SQL over another connection, where this check does not apply."
		case "QUERY_TO_XML", "QUERY_TO_XMLSCHEMA", "QUERY_TO_XML_AND_XMLSCHEMA",
			"TS_STAT", "TS_REWRITE", "CURSOR_TO_XML", "CURSOR_TO_XMLSCHEMA",
			"CROSSTAB", "CROSSTAB2", "CROSSTAB3", "CROSSTAB4", "CONNECTBY":
			// ts_rewrite's three-argument form runs nothing, yet asks too:
			// its name alone cannot tell the forms apart.
			return strings.ToLower(name) + " runs SQL given as text, which this check cannot see."
		case "TABLE_TO_XML", "TABLE_TO_XMLSCHEMA", "TABLE_TO_XML_AND_XMLSCHEMA",
			"SCHEMA_TO_XML", "SCHEMA_TO_XMLSCHEMA", "SCHEMA_TO_XML_AND_XMLSCHEMA",
			"DATABASE_TO_XML", "DATABASE_TO_XMLSCHEMA", "DATABASE_TO_XML_AND_XMLSCHEMA":
			return strings.ToLower(name) + " reads tables named in text, which this check cannot see."
		case "TXID_CURRENT", "PG_CURRENT_XACT_ID":
			return strings.ToLower(name) + " assigns the transaction an id, which uses one up."
		case "PG_LOG_BACKEND_MEMORY_CONTEXTS", "PG_LOG_STANDBY_SNAPSHOT", "PG_SYNC_REPLICATION_SLOTS",
			"PG_STAT_RESET_BACKEND_STATS":
			return strings.ToLower(name) + " changes the state of the server."
		case "PG_NOTIFY":
			return "pg_notify sends a notification to other sessions."
		case "PG_RELOAD_CONF", "PG_ROTATE_LOGFILE", "PG_SWITCH_WAL", "PG_PROMOTE",
			"PG_CREATE_RESTORE_POINT", "PG_BACKUP_START", "PG_BACKUP_STOP", "PG_START_BACKUP",
			"PG_STOP_BACKUP", "PG_WAL_REPLAY_PAUSE", "PG_WAL_REPLAY_RESUME", "PG_STAT_RESET",
			"PG_STAT_RESET_SHARED", "PG_STAT_RESET_SINGLE_TABLE_COUNTERS",
			"PG_STAT_RESET_SINGLE_FUNCTION_COUNTERS", "PG_STAT_RESET_SLRU",
			"PG_STAT_RESET_REPLICATION_SLOT", "PG_STAT_RESET_SUBSCRIPTION_STATS",
			"PG_STAT_STATEMENTS_RESET", "PG_IMPORT_SYSTEM_COLLATIONS":
			return strings.ToLower(name) + " changes the state of the server."
		case "PG_CREATE_LOGICAL_REPLICATION_SLOT", "PG_CREATE_PHYSICAL_REPLICATION_SLOT",
			"PG_DROP_REPLICATION_SLOT", "PG_COPY_LOGICAL_REPLICATION_SLOT",
			"PG_COPY_PHYSICAL_REPLICATION_SLOT", "PG_LOGICAL_SLOT_GET_CHANGES",
			"PG_LOGICAL_SLOT_GET_BINARY_CHANGES", "PG_REPLICATION_SLOT_ADVANCE",
			"PG_LOGICAL_EMIT_MESSAGE":
			return strings.ToLower(name) + " changes replication state."
		case "PG_FILE_WRITE", "PG_FILE_RENAME", "PG_FILE_UNLINK", "PG_FILE_SYNC":
			return strings.ToLower(name) + " writes files on the server."
		}
		if strings.HasPrefix(name, "PG_REPLICATION_ORIGIN_") {
			return strings.ToLower(name) + " changes replication state."
		}
	case DialectMySQL:
		switch name {
		case "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS":
			return strings.ToLower(name) + " takes or releases a named lock."
		case "NEXTVAL", "SETVAL": // MariaDB's sequences
			return strings.ToLower(name) + " changes a sequence."
		case "SYS_EXEC", "SYS_EVAL":
			return strings.ToLower(name) + " runs a command on the server."
		}
	case DialectSQLite:
		switch name {
		case "LOAD_EXTENSION":
			return "load_extension loads code into the database engine."
		case "WRITEFILE":
			return "writefile writes a file."
		case "FTS3_TOKENIZER":
			return "fts3_tokenizer can register a tokenizer, which runs code."
		}
	}
	return ""
}

// writeVerdict classifies a statement that is not a query, SHOW, EXPLAIN
// or read-only PRAGMA: always a write, with a kind and a reason.
func writeVerdict(toks []Token, i int) Verdict {
	lead := toks[i].Text
	next := ""
	if i+1 < len(toks) && toks[i+1].Kind == TokWord {
		next = toks[i+1].Text
	}
	kind := lead
	switch lead {
	case "CREATE", "ALTER", "DROP":
		if obj := objectKind(toks[i+1:]); obj != "" {
			kind += " " + obj
		}
	case "START":
		if next == "TRANSACTION" {
			kind += " " + next
		}
	case "BEGIN":
		if beginNotAtomic(toks[i:]) {
			return verdictWrite("BEGIN NOT ATOMIC", "BEGIN NOT ATOMIC runs a compound statement, which may change data.")
		}
	case "LOAD":
		if next == "DATA" || next == "XML" {
			kind += " " + next
		}
	}
	if v, ok := outsideVerdict(toks[i:], kind); ok {
		return v
	}
	reason := writeReason(lead, kind)
	if reason != "" {
		v := verdictWrite(kind, reason)
		v.Outside = lead == "ATTACH"
		return v
	}
	v := verdictWrite(kind, lead+" is not a statement known to be read-only, so it is treated as a write.")
	v.Unknown = true
	return v
}

// outsideVerdict returns the verdict of a statement that, beyond writing,
// reads or writes files or runs programs outside the database: COPY with
// a file or PROGRAM, LOAD DATA, VACUUM INTO. ok is false for any other.
func outsideVerdict(toks []Token, kind string) (Verdict, bool) {
	has := func(word string) bool {
		for _, t := range toks {
			if t.IsWord(word) {
				return true
			}
		}
		return false
	}
	switch kind {
	case "COPY":
		if has("PROGRAM") {
			return verdictWrite("COPY ... PROGRAM", "COPY ... PROGRAM runs a command on the database server."), true
		}
		for k := 1; k+1 < len(toks); k++ {
			if (toks[k].IsWord("FROM") || toks[k].IsWord("TO")) && toks[k+1].Kind == TokString {
				return verdictWrite("COPY", "COPY with a file name reads or writes a file on the database server."), true
			}
		}
	case "LOAD DATA", "LOAD XML":
		if has("LOCAL") { // LOAD DATA [LOW_PRIORITY | CONCURRENT] LOCAL INFILE
			return verdictWrite(kind+" LOCAL", kind+" LOCAL reads a file on the machine aiq-rpc runs on into a table."), true
		}
		return verdictWrite(kind, kind+" reads a file on the database server into a table."), true
	case "VACUUM":
		if has("INTO") {
			return verdictWrite("VACUUM INTO", "VACUUM INTO writes a copy of the database to a file."), true
		}
	}
	return Verdict{}, false
}

// writeReason says, for the confirmation dialog, what a statement that
// starts with lead does; kind is its full name. It returns "" for a
// statement it does not know.
func writeReason(lead, kind string) string {
	switch lead {
	case "INSERT":
		return "INSERT adds rows to a table."
	case "UPDATE":
		return "UPDATE changes rows in a table."
	case "DELETE":
		return "DELETE removes rows from a table."
	case "MERGE":
		return "MERGE inserts, updates or deletes rows."
	case "REPLACE":
		return "REPLACE deletes rows and inserts new ones."
	case "UPSERT":
		return "UPSERT inserts rows or updates existing ones."
	case "CREATE":
		return kind + " creates a new object in the database."
	case "ALTER":
		return kind + " changes the definition of an object in the database."
	case "DROP":
		return kind + " deletes an object and everything in it."
	case "TRUNCATE":
		return "TRUNCATE removes every row from a table."
	case "GRANT", "REVOKE":
		return lead + " changes who may do what in the database."
	case "COPY":
		return "COPY moves data between a table and a file or a program."
	case "CALL":
		return "CALL runs a stored procedure, which may change data."
	case "DO":
		return "DO runs code on the server, which may change data."
	case "SET", "RESET":
		return lead + " changes a setting of the session or the server."
	case "LOCK", "UNLOCK":
		return lead + " takes or releases locks on tables."
	case "VACUUM":
		return "VACUUM rewrites tables or the database file."
	case "ANALYZE", "ANALYSE":
		return lead + " updates the statistics the query planner uses (MariaDB's ANALYZE runs the statement)."
	case "REINDEX":
		return "REINDEX rebuilds indexes."
	case "CLUSTER":
		return "CLUSTER rewrites a table in the order of an index."
	case "OPTIMIZE", "REPAIR":
		return lead + " rebuilds a table."
	case "LOAD":
		return kind + " loads a file into the database."
	case "HANDLER":
		return "HANDLER reads and changes tables below the SQL layer."
	case "ATTACH":
		return "ATTACH opens another database file, or creates it, on the machine aiq-rpc runs on."
	case "DETACH":
		return "DETACH closes an attached database file."
	case "BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "XA":
		return kind + " controls transactions, which aiq-rpc manages itself: each statement runs in a transaction of its own."
	case "PREPARE", "EXECUTE", "DEALLOCATE":
		return lead + " works with prepared statements, whose SQL this check cannot see."
	case "DECLARE", "FETCH", "MOVE", "CLOSE":
		return lead + " works with cursors, which the read-only checks do not cover."
	case "COMMENT":
		return "COMMENT changes the comment stored on an object."
	case "REFRESH":
		return "REFRESH rewrites the data of a materialized view."
	case "RENAME":
		return "RENAME renames objects in the database."
	case "LISTEN", "NOTIFY", "UNLISTEN":
		return lead + " uses the server's notification channels."
	case "USE":
		return "USE switches the connection to another database."
	case "DISCARD":
		return "DISCARD resets the state of the session."
	case "FLUSH", "KILL", "SHUTDOWN", "RESTART", "PURGE", "INSTALL", "UNINSTALL", "CHECKPOINT":
		return lead + " acts on the server itself."
	}
	return ""
}
