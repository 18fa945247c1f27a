package sqltext

import (
	"slices"
	"strings"
)

// Shape is what an "Allow always" answer covers: one kind of data change
// on the same objects. It is read from the statement by the classifier's
// lexer, never taken from the model.
type Shape struct {
	// Kind is INSERT, UPDATE, DELETE or REPLACE.
	Kind string `json:"kind"`
	// Objects are the tables the statement names: the one it changes
	// first, then those it reads, each once, as written in the statement.
	Objects []string `json:"objects"`
	// keys are the objects folded for comparison, in the same order.
	keys []string
}

// Covers reports whether an allowance for s covers a statement of shape o.
func (s Shape) Covers(o Shape) bool {
	return s.Kind == o.Kind && slices.Equal(s.keys, o.keys)
}

// Text says what the shape covers, for a dialog: "UPDATE on orders",
// "INSERT on audit_log (reading orders)".
func (s Shape) Text() string {
	if len(s.Objects) == 0 {
		return s.Kind
	}
	text := s.Kind + " on " + s.Objects[0]
	if len(s.Objects) > 1 {
		text += " (reading " + strings.Join(s.Objects[1:], ", ") + ")"
	}
	return text
}

// StatementShape returns the shape of sql when an "Allow always" answer
// may cover it. ok is false for every statement that must ask each time:
// anything but a plain INSERT, UPDATE, DELETE or REPLACE of one table (so
// every DROP, TRUNCATE, ALTER and GRANT), an UPDATE or DELETE without a
// WHERE, an upsert, a statement that reaches outside the database or calls
// a function that changes something besides its table, one that changes
// several tables, and any text the classifier cannot read as one
// statement the same way on every server.
func StatementShape(sql string, d Dialect) (Shape, bool) {
	p, why := PlainChange(sql, d)
	if why != "" {
		return Shape{}, false
	}
	for _, t := range p.toks {
		if t.IsWord("CONFLICT") || t.IsWord("DUPLICATE") {
			return Shape{}, false
		}
	}
	shape, ok := p.shape()
	if !ok || p.callsOtherFunction() != "" || p.hidesReads() {
		return Shape{}, false
	}
	return shape, true
}

// hidesReads reports whether the statement names tables where the shape's
// reader does not look for them: a parenthesised join after FROM, JOIN or
// USING (FROM (customers c CROSS JOIN orders o)), PostgreSQL's TABLE t,
// or a sequence's next value, which no rollback gives back. Such a
// statement asks every time.
func (p *shapeParser) hidesReads() bool {
	for i, t := range p.toks {
		switch {
		case t.IsWord("TABLE"):
			return true
		case t.IsWord("NEXT") && i+2 < len(p.toks) && p.toks[i+1].IsWord("VALUE") && p.toks[i+2].IsWord("FOR"):
			return true
		case (t.IsWord("FROM") || t.IsWord("JOIN") || t.IsWord("STRAIGHT_JOIN") || t.IsWord("USING") || t.IsPunct(",")) &&
			i+2 < len(p.toks) && p.toks[i+1].IsPunct("(") && p.toks[i+2].Kind == TokWord && !p.toks[i+2].IsWord("SELECT") && !p.toks[i+2].IsWord("WITH") && !p.toks[i+2].IsWord("VALUES"):
			if t.IsWord("USING") && i > 0 && p.toks[i-1].Kind == TokWord {
				continue // JOIN t USING (id): a column list
			}
			return true
		}
	}
	return false
}

// callsOtherFunction returns the name of a function the statement calls
// that is not one of the database's own that only compute a value: a
// function the database defines may change any table, so a statement that
// calls one is outside every allowance. A name that only looks like a
// call (an alias's column list) counts too, which only makes it ask.
func (p *shapeParser) callsOtherFunction() string {
	_, targetAt, _, _, _ := p.Target()
	targetEnd := p.i
	for i, t := range p.toks {
		if i+1 >= len(p.toks) || !p.toks[i+1].IsPunct("(") || i >= targetAt && i < targetEnd {
			continue
		}
		if i >= 2 && p.toks[i-1].IsPunct(".") {
			// A qualified name is never a built-in but for
			// pg_catalog's: public.lower(...) is the database's own.
			q := p.toks[i-2]
			if q.Kind == TokWord && strings.EqualFold(q.Text, "pg_catalog") && (i < 3 || !p.toks[i-3].IsPunct(".")) &&
				t.Kind == TokWord && pureFunction(t.Text) {
				continue
			}
			return strings.ToLower(q.Text + "." + t.Text)
		}
		switch {
		case t.Kind == TokQuoted:
			return t.Text
		case t.Kind != TokWord, IsReserved(t.Text), pureFunction(t.Text):
			continue
		}
		return strings.ToLower(t.Text)
	}
	return ""
}

// pureFunction reports whether name (folded) is a built-in function of
// the engines that only computes its value from its arguments.
func pureFunction(name string) bool {
	switch name {
	case "COALESCE", "NULLIF", "IFNULL", "ISNULL", "NVL", "IF", "IIF", "GREATEST", "LEAST",
		"LOWER", "UPPER", "LCASE", "UCASE", "TRIM", "LTRIM", "RTRIM", "BTRIM", "LENGTH", "CHAR_LENGTH",
		"CHARACTER_LENGTH", "OCTET_LENGTH", "SUBSTR", "SUBSTRING", "REPLACE", "CONCAT", "CONCAT_WS",
		"POSITION", "INSTR", "LOCATE", "STRPOS", "LPAD", "RPAD", "REVERSE", "INITCAP", "SPLIT_PART", "FORMAT", "PRINTF",
		"ABS", "ROUND", "FLOOR", "CEIL", "CEILING", "TRUNC", "MOD", "POWER", "POW", "SQRT", "SIGN", "EXP", "LN", "LOG",
		"NOW", "CURDATE", "CURTIME", "SYSDATE", "UTC_TIMESTAMP", "CLOCK_TIMESTAMP", "STATEMENT_TIMESTAMP",
		"TRANSACTION_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "DATE", "TIME", "DATETIME", "JULIANDAY",
		"STRFTIME", "UNIXEPOCH", "DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE", "DATEDIFF", "DATE_FORMAT",
		"DATE_TRUNC", "DATE_PART", "EXTRACT", "AGE", "TO_CHAR", "TO_DATE", "TO_TIMESTAMP", "TO_NUMBER",
		"MAKE_DATE", "MAKE_TIMESTAMP", "STR_TO_DATE", "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND",
		"CONVERT", "TYPEOF", "HEX", "UNHEX", "MD5", "SHA1", "SHA2", "UUID", "GEN_RANDOM_UUID", "RANDOM", "RAND",
		"JSON_OBJECT", "JSON_ARRAY", "JSON_EXTRACT", "JSON_SET", "JSON_VALUE", "JSONB_SET", "JSONB_BUILD_OBJECT",
		"JSON_BUILD_OBJECT", "TO_JSON", "TO_JSONB", "MIN", "MAX", "SUM", "COUNT", "AVG":
		return true
	}
	return false
}

// plainChange reads sql as a data change that touches nothing but the
// database's tables, ready to find its target; else it says why not.
func PlainChange(sql string, d Dialect) (*shapeParser, string) {
	v, err := Classify(sql, d)
	switch {
	case err != nil || v.Class != Write || v.Unknown:
		return nil, "it is not a statement that changes data"
	case v.Outside:
		return nil, "it reaches outside the database"
	}
	toks, regions, err := Lex(sql, d, Reading{})
	if err != nil || regions > 0 {
		return nil, "it holds MySQL executable comments, which servers read in different ways"
	}
	if toks, err = OneStatement(sql, toks, d, ""); err != nil {
		return nil, "it is not one statement"
	}
	for _, t := range toks {
		switch {
		case t.Unicode:
			return nil, `a U&"..." name can spell any function`
		case WritingFunction(t.Text, d) != "" || OutsideFunction(t.Text, d) != "":
			return nil, "it calls " + strings.ToLower(t.Text) + ", whose effect a rollback may not undo"
		case t.IsWord("OUTFILE"), t.IsWord("DUMPFILE"):
			return nil, "it writes a file"
		}
	}
	return &shapeParser{sql: sql, toks: toks, d: d}, ""
}

// shapeParser reads the target and the objects of one data change.
type shapeParser struct {
	sql  string
	toks []Token
	d    Dialect
	i    int
}

func (p *shapeParser) peekWord(words ...string) bool {
	if p.i >= len(p.toks) {
		return false
	}
	return slices.ContainsFunc(words, p.toks[p.i].IsWord)
}

// skipWords skips any of the modifiers words.
func (p *shapeParser) skipWords(words ...string) {
	for p.peekWord(words...) {
		p.i++
	}
}

func (p *shapeParser) shape() (Shape, bool) {
	kind, targetAt, target, key, ok := p.Target()
	if !ok {
		return Shape{}, false
	}
	s := Shape{Kind: kind, Objects: []string{target}, keys: []string{key}}
	if (kind == "UPDATE" || kind == "DELETE") && !p.hasWhere() {
		return Shape{}, false
	}
	for _, obj := range p.readObjects(targetAt) {
		if !slices.Contains(s.keys, obj[1]) {
			s.Objects = append(s.Objects, obj[0])
			s.keys = append(s.keys, obj[1])
		}
	}
	return s, true
}

// hasWhere reports whether the statement has a WHERE of its own, outside
// parentheses, that names a column: WHERE true, WHERE 1 = 1 or WHERE
// now() IS NOT NULL pick every row, as no WHERE does.
func (p *shapeParser) hasWhere() bool {
	depth, in := 0, false
	for i, t := range p.toks {
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth == 0 && t.IsWord("WHERE"):
			in = true
		case depth == 0 && in && (t.IsWord("RETURNING") || t.IsWord("ORDER") || t.IsWord("LIMIT")):
			return false
		case in && namesColumn(p.toks, i):
			return true
		}
	}
	return false
}

// namesColumn reports whether toks[i] may name a column: an identifier
// that is not a function's name, nor a word of SQL's conditions.
func namesColumn(toks []Token, i int) bool {
	t := toks[i]
	if t.Kind != TokWord && t.Kind != TokQuoted || i+1 < len(toks) && toks[i+1].IsPunct("(") {
		return false
	}
	if t.Kind == TokQuoted {
		return true
	}
	if IsReserved(t.Text) {
		return false
	}
	// Words of conditions that the reserved words leave out.
	switch t.Text {
	case "UNKNOWN", "XOR", "ILIKE", "GLOB", "REGEXP", "RLIKE", "MATCH", "SIMILAR", "ESCAPE", "SYMMETRIC",
		"INTERVAL", "DIV", "MOD", "LOCALTIME", "LOCALTIMESTAMP", "SESSION_USER":
		return false
	}
	return true
}

// target reads the kind of a plain data change of one table and its
// target: where the name starts, its text as written and its key. ok is
// false for anything else, a change of several tables included.
func (p *shapeParser) Target() (kind string, targetAt int, text, key string, ok bool) {
	if len(p.toks) == 0 || p.toks[0].Kind != TokWord {
		return "", 0, "", "", false
	}
	kind = p.toks[0].Text
	p.i = 1
	switch kind {
	case "INSERT", "REPLACE":
		p.skipWords("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE")
		if p.peekWord("OR") {
			return "", 0, "", "", false // SQLite's INSERT OR REPLACE deletes rows
		}
		p.skipWords("INTO")
	case "UPDATE":
		p.skipWords("LOW_PRIORITY", "IGNORE", "ONLY")
		if p.peekWord("OR") {
			return "", 0, "", "", false
		}
	case "DELETE":
		p.skipWords("LOW_PRIORITY", "QUICK", "IGNORE")
		if !p.peekWord("FROM") {
			return "", 0, "", "", false // MySQL's DELETE t1, t2 FROM ...
		}
		p.i++
		p.skipWords("ONLY")
	default:
		return "", 0, "", "", false
	}
	targetAt = p.i
	text, key, ok = p.name()
	if !ok {
		return "", 0, "", "", false
	}
	// What follows the target up to its first clause must be an alias at
	// most: a comma or a JOIN there changes several tables.
	depth, where := 0, false
	for j := p.i; j < len(p.toks); j++ {
		t := p.toks[j]
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth == 0 && t.IsWord("WHERE"):
			where = true
		case depth == 0 && !where && (t.IsPunct(",") || t.IsWord("JOIN") || t.IsWord("STRAIGHT_JOIN")) && kind != "INSERT" && !p.afterClause(j):
			return "", 0, "", "", false
		case depth == 0 && t.IsWord("USING") && kind == "DELETE" && p.d == DialectMySQL:
			return "", 0, "", "", false
		}
	}
	return kind, targetAt, text, key, true
}

// afterClause reports whether token j comes after the target's first
// clause (SET, WHERE, VALUES, FROM, USING, RETURNING), where commas and
// joins are the statement's own business.
func (p *shapeParser) afterClause(j int) bool {
	for k := p.i; k < j; k++ {
		switch t := p.toks[k]; {
		case t.IsWord("SET"), t.IsWord("WHERE"), t.IsWord("FROM"), t.IsWord("USING"), t.IsWord("RETURNING"):
			return true
		}
	}
	return false
}

// name reads a table name at p.i, perhaps qualified: its text as written
// and its folded key.
func (p *shapeParser) name() (text, key string, ok bool) {
	start := p.i
	var keys []string
	for {
		if p.i >= len(p.toks) || (p.toks[p.i].Kind != TokWord && p.toks[p.i].Kind != TokQuoted) {
			return "", "", false
		}
		keys = append(keys, p.key(p.toks[p.i]))
		p.i++
		if p.i+1 < len(p.toks) && p.toks[p.i].IsPunct(".") {
			p.i++
			continue
		}
		break
	}
	end := len(p.sql)
	if p.i < len(p.toks) {
		end = p.toks[p.i].Pos
	}
	text = strings.TrimSpace(p.sql[p.toks[start].Pos:end])
	return text, strings.Join(keys, "."), true
}

// key is a name's part for comparison: an unquoted name folded, a quoted
// one exactly as written, since "Orders" and orders may be two tables.
func (p *shapeParser) key(t Token) string {
	if t.Kind != TokQuoted {
		if p.d == DialectMySQL {
			// MySQL's and MariaDB's table names are case-sensitive on
			// Linux (lower_case_table_names=0): orders and ORDERS are
			// two tables.
			end := t.Pos
			for end < len(p.sql) && lexIdentPart(p.sql[end]) {
				end++
			}
			return p.sql[t.Pos:end]
		}
		return t.Text
	}
	if q := p.sql[t.Pos]; q != '[' {
		if end, ok := LexQuoteEnd(p.sql, t.Pos, q, false); ok {
			return p.sql[t.Pos:end]
		}
	} else if end := strings.IndexByte(p.sql[t.Pos:], ']'); end > 0 {
		return p.sql[t.Pos : t.Pos+end+1]
	}
	return t.Text
}

// readObjects lists the tables named after FROM, JOIN or USING anywhere
// in the statement, comma lists included: the tables it reads.
// targetAt is where the target's name starts.
func (p *shapeParser) readObjects(targetAt int) [][2]string {
	var objs [][2]string
	for j := 0; j < len(p.toks); j++ {
		t := p.toks[j]
		if !t.IsWord("FROM") && !t.IsWord("JOIN") && !t.IsWord("USING") {
			continue
		}
		if j < targetAt {
			continue // DELETE FROM target
		}
		for k := j + 1; k < len(p.toks); {
			if p.toks[k].Kind != TokWord && p.toks[k].Kind != TokQuoted {
				break
			}
			q := shapeParser{sql: p.sql, toks: p.toks, d: p.d, i: k}
			text, key, ok := q.name()
			if !ok || isClauseWord(key) {
				break
			}
			objs = append(objs, [2]string{text, key})
			k = q.i
			if k < len(p.toks) && p.toks[k].IsWord("AS") {
				k++
			}
			// An alias, then perhaps a comma and another table.
			for k < len(p.toks) && (p.toks[k].Kind == TokWord || p.toks[k].Kind == TokQuoted) && !isClauseWord(p.toks[k].Text) {
				k++
			}
			if k < len(p.toks) && p.toks[k].IsPunct(",") {
				k++
				continue
			}
			break
		}
	}
	return objs
}

// isClauseWord reports whether the folded word starts a clause rather
// than naming a table or an alias.
func isClauseWord(w string) bool {
	switch w {
	case "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "ON", "USING", "GROUP",
		"ORDER", "LIMIT", "HAVING", "UNION", "EXCEPT", "INTERSECT", "SET", "RETURNING", "WINDOW", "OFFSET",
		"FETCH", "FOR", "LATERAL", "SELECT", "VALUES", "AS", "STRAIGHT_JOIN":
		return true
	}
	return false
}
