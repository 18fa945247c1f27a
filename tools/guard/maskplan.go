package guard

import (
	"slices"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// MaskedColumns says which of the columns of the result of sql are masked,
// by the rule of Masker's doc comment. It never returns nil.
func (m *Masker) MaskedColumns(sql string, columns []string) []bool {
	out := make([]bool, len(columns))
	if !m.active() {
		return out
	}
	for i, c := range columns {
		out[i] = m.Masks(c)
	}
	scans, ok := m.readings(sql)
	if !ok {
		return allTrue(out)
	}
	for _, scan := range scans {
		for i, masked := range scan.masked(len(columns)) {
			out[i] = out[i] || masked
		}
	}
	return out
}

// mentions reports whether sql refers to a masked column anywhere, in
// any way a server may read it, or cannot be read well enough to tell.
func (m *Masker) mentions(sql string) bool {
	if !m.active() {
		return false
	}
	scans, ok := m.readings(sql)
	return !ok || slices.ContainsFunc(scans, func(s *stmtScan) bool { return s.anyRef })
}

// readings scans sql every way a server may read it, as Classify does. ok
// is false when a reading the engine runs cannot be followed by this
// lexer, or holds code some servers skip: then no column can be told safe.
func (m *Masker) readings(sql string) (scans []*stmtScan, ok bool) {
	for n, r := range sqltext.Readings(sql, m.dialect) {
		toks, regions, err := sqltext.Lex(sql, m.dialect, r)
		if err != nil && n > 0 && !sqltext.IsClassifyError(err, sqltext.ErrAmbiguous) {
			continue // not SQL when read this way: no server ran it so
		}
		if err != nil || regions > 0 {
			return nil, false
		}
		if n := len(toks); n > 0 && toks[n-1].IsPunct(";") {
			toks = toks[:n-1]
		}
		scans = append(scans, m.scanStatement(sql, toks))
	}
	return scans, true
}

func allTrue(b []bool) []bool {
	for i := range b {
		b[i] = true
	}
	return b
}

// stmtScan is what maskedColumns reads of one statement's tokens.
type stmtScan struct {
	toks []sqltext.Token
	// ref marks the tokens that are refs: masked names, token literals
	// and stars inside an expression.
	ref    []bool
	anyRef bool
	// nestedRef says that a ref is inside a parenthesised SELECT, WITH,
	// VALUES or TABLE: a subquery or a CTE's body.
	nestedRef bool
	setOp     bool
	// renames says that a column may get another name without being
	// named: a column alias list, or a star or TABLE beside a set
	// operation.
	renames bool
	// items are the outermost select list's items, as token ranges;
	// nil when there is no outermost SELECT at the start of the
	// statement (after its WITH clause).
	items [][2]int
}

// scanStatement reads toks, the tokens of sql.
func (m *Masker) scanStatement(sql string, toks []sqltext.Token) *stmtScan {
	s := &stmtScan{toks: toks, ref: make([]bool, len(toks))}
	m.mu.Lock()
	for i, t := range toks {
		switch t.Kind {
		case sqltext.TokWord, sqltext.TokQuoted:
			s.ref[i] = m.masksLocked(strings.ToLower(t.Text))
		case sqltext.TokString:
			s.ref[i] = strings.HasPrefix(sql[t.Pos:], "'<masked:")
		}
		s.anyRef = s.anyRef || s.ref[i]
	}
	m.mu.Unlock()

	var stack []bool // per open parenthesis: whether it holds a query
	inQuery := 0
	star := false
	for i, t := range toks {
		switch {
		case t.IsPunct("("):
			q := i+1 < len(toks) && (toks[i+1].IsWord("SELECT") || toks[i+1].IsWord("WITH") || toks[i+1].IsWord("VALUES") || toks[i+1].IsWord("TABLE"))
			stack = append(stack, q)
			if q {
				inQuery++
			}
			if aliasList(toks, i) {
				s.renames = true
			}
		case t.IsPunct(")"):
			if n := len(stack); n > 0 {
				if stack[n-1] {
					inQuery--
				}
				stack = stack[:n-1]
			}
		case t.IsWord("UNION") || t.IsWord("INTERSECT") || t.IsWord("EXCEPT") || t.IsWord("MINUS"):
			s.setOp = true
		case t.IsWord("TABLE") || isStar(toks, i):
			star = true
			if n := len(stack); t.IsPunct("*") && (n > 0 && !stack[n-1] || !starEnds(toks, i+1)) {
				// A star inside an expression, row_to_json(c.*) or
				// c.*::text: its columns' values under the
				// expression's name.
				s.ref[i], s.anyRef = true, true
			}
		}
		s.nestedRef = s.nestedRef || s.ref[i] && inQuery > 0
	}
	if m.dialect == sqltext.DialectPostgres {
		uses, nested := wholeRows(toks)
		for n, i := range uses {
			s.ref[i], s.anyRef = true, true
			s.nestedRef = s.nestedRef || nested[n]
		}
	}
	s.renames = s.renames || star && s.setOp
	s.items = selectItems(toks)
	return s
}

// starEnds reports whether toks[i] may follow a star item: a comma, a
// closing parenthesis, a word that ends a select list, or the end.
func starEnds(toks []sqltext.Token, i int) bool {
	if i >= len(toks) {
		return true
	}
	t := toks[i]
	return t.IsPunct(",") || t.IsPunct(")") || t.Kind == sqltext.TokWord && selectEnds[t.Text]
}

// wholeRows returns the tokens of a PostgreSQL statement that may be
// whole-row references, which name neither a column nor a star: SELECT c
// FROM customers c, row_to_json(c). They are the uses, neither qualified
// nor qualifying, of a name that the statement puts in a FROM or JOIN
// (a table's last name part, or its alias), other than there; nested says
// which of them are inside a parenthesised query.
func wholeRows(toks []sqltext.Token) (uses []int, nested []bool) {
	type level struct{ query, paren, from bool }
	levels := []level{{}} // the statement, then each open parenthesis
	inQuery := make([]bool, len(toks))
	names := map[string]bool{}
	at := map[int]bool{}
	queries := 0
	for i, t := range toks {
		top := &levels[len(levels)-1]
		inQuery[i] = queries > 0
		switch {
		case t.IsPunct("("):
			q := i+1 < len(toks) && (toks[i+1].IsWord("SELECT") || toks[i+1].IsWord("WITH") || toks[i+1].IsWord("VALUES"))
			levels = append(levels, level{query: q, paren: true})
			if q {
				queries++
			}
			continue
		case t.IsPunct(")"):
			if len(levels) > 1 {
				if top.query {
					queries--
				}
				levels = levels[:len(levels)-1]
			}
			continue
		case t.IsWord("FROM") && i > 0 && toks[i-1].IsWord("DISTINCT"): // a IS DISTINCT FROM b
			continue
		case t.IsWord("FROM") || t.IsWord("JOIN"):
			top.from = true
		case t.Kind == sqltext.TokWord && (selectEnds[t.Text] || t.IsWord("SELECT") || t.IsWord("ON") || t.IsWord("USING")):
			top.from = false
			continue
		case !t.IsPunct(","):
			continue
		}
		if !top.from || top.paren && !top.query {
			continue // not a FROM list: extract(year FROM d)
		}
		j := i + 1
		for j+2 < len(toks) && isName(toks[j]) && toks[j+1].IsPunct(".") && isName(toks[j+2]) {
			j += 2 // schema.table: the table
		}
		if j >= len(toks) || !isName(toks[j]) || toks[j].Kind == sqltext.TokWord && aliasKeywords[toks[j].Text] {
			continue
		}
		names[toks[j].Text], at[j] = true, true
		k := j + 1
		if k < len(toks) && toks[k].IsWord("AS") {
			k++
		}
		if k < len(toks) && isName(toks[k]) && !(toks[k].Kind == sqltext.TokWord && (aliasKeywords[toks[k].Text] || selectEnds[toks[k].Text])) {
			names[toks[k].Text], at[k] = true, true
		}
	}
	for i, t := range toks {
		if !isName(t) || !names[t.Text] || at[i] ||
			i > 0 && toks[i-1].IsPunct(".") || i+1 < len(toks) && (toks[i+1].IsPunct(".") || toks[i+1].IsPunct("(")) {
			continue
		}
		uses, nested = append(uses, i), append(nested, inQuery[i])
	}
	return uses, nested
}

func isName(t sqltext.Token) bool { return t.Kind == sqltext.TokWord || t.Kind == sqltext.TokQuoted }

// isStar reports whether toks[i] is a star that stands for columns: *
// after SELECT, DISTINCT, ALL, a comma or a dot; not count(*) nor a
// product.
func isStar(toks []sqltext.Token, i int) bool {
	if !toks[i].IsPunct("*") || i == 0 {
		return false
	}
	p := toks[i-1]
	return p.IsWord("SELECT") || p.IsWord("DISTINCT") || p.IsWord("ALL") || p.IsPunct(",") || p.IsPunct(".")
}

// aliasKeywords are the words that precede a parenthesis, or a name
// before one, without making it a column alias list.
var aliasKeywords = wordSet(`ALL AND ANY AS BETWEEN BY CASE CROSS DELETE DISTINCT ELSE END EXCEPT EXISTS FILTER FROM
	FULL GROUP HAVING IN INNER INSERT INTERSECT INTO IS JOIN LATERAL LEFT LIKE ILIKE LIMIT NATURAL NOT OFFSET ON OR
	ORDER OUTER OVER PARTITION RECURSIVE REPLACE RETURN RETURNING RIGHT ROW ROWS SELECT SET SOME TABLE THEN UNION
	UPDATE USING VALUES WHEN WHERE WINDOW WITH WITHIN MINUS TABLESAMPLE`)

// selectEnds are the words that end a select list.
var selectEnds = wordSet(`FROM INTO WHERE GROUP HAVING WINDOW ORDER LIMIT OFFSET FETCH FOR UNION INTERSECT EXCEPT MINUS LOCK`)

// wordSet returns the set of the words of s; the sets are never changed.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// aliasList reports whether the parenthesis at toks[open] may start a
// column alias list, which renames a table's columns by position:
// customers c(i, e), (SELECT ...) s(i, e), f() AS t(a, b), WITH x(e) AS
// (...). It holds names and commas only, follows a name, and that name
// follows AS, a closing parenthesis or another name (a table's), or the
// list is followed by AS ( or AS [NOT] MATERIALIZED. A type such as
// varchar(10) holds a number, so it is none.
func aliasList(toks []sqltext.Token, open int) bool {
	if open == 0 {
		return false
	}
	name := toks[open-1]
	if name.Kind != sqltext.TokWord && name.Kind != sqltext.TokQuoted || name.Kind == sqltext.TokWord && aliasKeywords[name.Text] {
		return false
	}
	end := open + 1
	for end < len(toks) && !toks[end].IsPunct(")") {
		if t := toks[end]; t.Kind != sqltext.TokWord && t.Kind != sqltext.TokQuoted && !t.IsPunct(",") {
			return false
		}
		end++
	}
	if end >= len(toks) || end == open+1 {
		return false
	}
	if open >= 2 {
		before := toks[open-2]
		if before.IsWord("AS") || before.IsPunct(")") || before.Kind == sqltext.TokQuoted ||
			before.Kind == sqltext.TokWord && !aliasKeywords[before.Text] {
			return true
		}
	}
	if end+2 < len(toks) && toks[end+1].IsWord("AS") {
		next := toks[end+2]
		return next.IsPunct("(") || next.IsWord("MATERIALIZED") || next.IsWord("NOT")
	}
	return false
}

// selectItems returns the items of the outermost select list of a
// statement that is a SELECT, or WITH ... SELECT: the token ranges
// between its top-level commas. It returns nil for another statement.
func selectItems(toks []sqltext.Token) [][2]int {
	if len(toks) == 0 || !toks[0].IsWord("SELECT") && !toks[0].IsWord("WITH") {
		return nil
	}
	start, depth := -1, 0
	for i, t := range toks {
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth == 0 && t.IsWord("SELECT"):
			// After WITH, the SELECT that follows the last CTE's body;
			// not the one of WITH ... INSERT INTO t SELECT.
			if i > 0 && !toks[i-1].IsPunct(")") {
				return nil
			}
			start = i + 1
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return nil
	}
	i := start
	if i < len(toks) && (toks[i].IsWord("ALL") || toks[i].IsWord("DISTINCT")) {
		i++
		if i < len(toks) && toks[i].IsWord("ON") && i+1 < len(toks) && toks[i+1].IsPunct("(") {
			i = closing(toks, i+1) + 1
		}
	}
	var items [][2]int
	depth, from := 0, i
	for ; i <= len(toks); i++ {
		if i == len(toks) || depth == 0 && (toks[i].IsPunct(",") || toks[i].Kind == sqltext.TokWord && selectEnds[toks[i].Text]) {
			if i == from {
				return nil
			}
			items = append(items, [2]int{from, i})
			if i == len(toks) || !toks[i].IsPunct(",") {
				break
			}
			from = i + 1
			continue
		}
		switch {
		case toks[i].IsPunct("("):
			depth++
		case toks[i].IsPunct(")"):
			depth--
		}
	}
	return items
}

// closing returns the index of the parenthesis that closes the one at
// toks[open], or the last index.
func closing(toks []sqltext.Token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].IsPunct("("):
			depth++
		case toks[i].IsPunct(")"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks) - 1
}

// masked says which of n result columns the statement's text masks, on
// top of the names rule.
func (s *stmtScan) masked(n int) []bool {
	out := make([]bool, n)
	if !s.anyRef && !s.renames {
		return out
	}
	if s.setOp || s.renames {
		return allTrue(out)
	}
	aligned := len(s.items) == n
	for _, it := range s.items {
		if s.wholeStar(it) {
			aligned = false
		}
	}
	if s.nestedRef {
		for i := range out {
			out[i] = !aligned || !s.isCount(s.items[i])
		}
		return out
	}
	for i, it := range s.items {
		if s.itemRef(it) && (!aligned || !s.isCount(it)) {
			if !aligned {
				return allTrue(out)
			}
			out[i] = true
		}
	}
	if !aligned && !s.anyStarItem() {
		return allTrue(out)
	}
	return out
}

// itemRef reports whether a select item holds a ref.
func (s *stmtScan) itemRef(it [2]int) bool {
	for i := it[0]; i < it[1]; i++ {
		if s.ref[i] {
			return true
		}
	}
	return false
}

// wholeStar reports whether a select item is * or name.*.
func (s *stmtScan) wholeStar(it [2]int) bool {
	last := it[1] - 1
	if last < it[0] || !s.toks[last].IsPunct("*") {
		return false
	}
	for i := it[0]; i < last; i++ {
		if t := s.toks[i]; t.Kind != sqltext.TokWord && t.Kind != sqltext.TokQuoted && !t.IsPunct(".") {
			return false
		}
	}
	return true
}

func (s *stmtScan) anyStarItem() bool {
	for _, it := range s.items {
		if s.wholeStar(it) {
			return true
		}
	}
	return false
}

// isCount reports whether a select item is exactly count(...), with or
// without an alias: a number, whatever it counts.
func (s *stmtScan) isCount(it [2]int) bool {
	t := s.toks
	if it[1]-it[0] < 3 || !t[it[0]].IsWord("COUNT") || !t[it[0]+1].IsPunct("(") {
		return false
	}
	end := closing(t[:it[1]], it[0]+1)
	if !t[end].IsPunct(")") {
		return false
	}
	rest := t[end+1 : it[1]]
	if len(rest) > 0 && rest[0].IsWord("AS") {
		rest = rest[1:]
	}
	return len(rest) == 0 || len(rest) == 1 && (rest[0].Kind == sqltext.TokWord || rest[0].Kind == sqltext.TokQuoted)
}
