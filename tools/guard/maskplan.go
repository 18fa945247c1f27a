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

// mentions reports whether sql may carry a masked column's value into
// an error: it refers to a masked column, renames columns, has a star
// over columns, or cannot be read well enough to tell.
func (m *Masker) mentions(sql string) bool {
	if !m.active() {
		return false
	}
	scans, ok := m.readings(sql)
	return !ok || slices.ContainsFunc(scans, func(s *stmtScan) bool {
		return s.anyRef || s.renames || s.star || s.setOp
	})
}

// maskReason says, for the model, why a statement had every column
// masked, so that it can ask otherwise; "" when it had not.
func (m *Masker) maskReason(sql string) string {
	scans, ok := m.readings(sql)
	if !ok {
		return "This statement could not be read well enough to tell which columns carry masked values, so every column is masked."
	}
	var why []string
	for _, s := range scans {
		for _, w := range s.why {
			if !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
	}
	if len(why) == 0 {
		return ""
	}
	verb, it := "is", "it"
	if len(why) > 1 {
		verb, it = "are", "them"
	}
	return strings.Join(why, ", ") + " " + verb + " masked: select " + it + " to get tokens, count " + it + ", test " + it +
		" with IS NULL, or compare " + it + " with a token (WHERE email = '<masked:...>'); used anywhere else (a function in FROM, " +
		"a WHERE or JOIN condition, a subquery) a masked column masks every column of the result."
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
	star      bool // a star or TABLE that stands for columns
	// renames says that a column may get another name without being
	// named: a column alias list, or a star or TABLE beside a set
	// operation.
	renames bool
	// items are the outermost select list's items, as token ranges;
	// nil when there is no outermost SELECT at the start of the
	// statement (after its WITH clause).
	items [][2]int
	// flows says that a ref stands where its value can reach the
	// result other than as a column of its own: anywhere but an item of
	// the outermost select list, count(...), IS [NOT] NULL, an equality
	// with a token, or a plain ORDER BY or GROUP BY. why names the refs
	// that do.
	flows bool
	why   []string
}

// scanStatement reads toks, the tokens of sql.
func (m *Masker) scanStatement(sql string, toks []sqltext.Token) *stmtScan {
	s := &stmtScan{toks: toks, ref: make([]bool, len(toks))}
	m.mu.Lock()
	for i, t := range toks {
		switch t.Kind {
		case sqltext.TokWord, sqltext.TokQuoted:
			// A PostgreSQL U&"..." name can spell any column: it is
			// taken for a masked one.
			s.ref[i] = m.masksLocked(strings.ToLower(t.Text)) || t.Unicode
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
	open, query := parens(toks)
	derived := map[int]bool{}
	for _, j := range fromItems(toks) {
		derived[j] = true
	}
	for i, t := range toks {
		if !s.ref[i] && (isStar(toks, i) || t.IsWord("TABLE")) && scalarStar(toks, open, query, derived, i) {
			// (SELECT * FROM emails LIMIT 1): a column's values with
			// no name to mask them by.
			s.ref[i], s.anyRef, s.nestedRef = true, true, true
		}
	}
	if m.dialect == sqltext.DialectPostgres {
		uses, nested := wholeRows(toks, s.ref)
		for n, i := range uses {
			s.ref[i], s.anyRef = true, true
			s.nestedRef = s.nestedRef || nested[n]
		}
	}
	s.renames = s.renames || star && s.setOp
	s.star = star
	s.items = selectItems(toks)
	s.findFlows()
	return s
}

// findFlows sets flows and why: each ref outside the outermost select
// list's items, or nested in a query, and not in a place that only
// counts, tests or compares it.
func (s *stmtScan) findFlows() {
	for i, t := range s.toks {
		if t.Kind == sqltext.TokWord && textQueries[strings.ToLower(t.Text)] && i+1 < len(s.toks) && s.toks[i+1].IsPunct("(") {
			// Its query or table is a string: nothing here can tell
			// what it reads.
			s.flows, s.anyRef = true, true
			s.why = append(s.why, strings.ToLower(t.Text)+" (it reads a query or a table named in a string)")
		}
	}
	if !s.anyRef {
		return
	}
	open, query := parens(s.toks)
	inItem := make([]bool, len(s.toks))
	for _, it := range s.items {
		for i := it[0]; i < it[1]; i++ {
			inItem[i] = true
		}
	}
	for i, ref := range s.ref {
		if !ref || inItem[i] && !nestedIn(open, query, i) || s.harmless(i, open, query) {
			continue
		}
		s.flows = true
		name := "a whole row or a star over a masked column"
		switch t := s.toks[i]; t.Kind {
		case sqltext.TokWord, sqltext.TokQuoted:
			name = strings.ToLower(t.Text)
		case sqltext.TokString:
			name = "a masked token"
		}
		if !slices.Contains(s.why, name) {
			s.why = append(s.why, name)
		}
	}
}

// textQueries are the functions that run a query, or read a whole table
// or schema, named in a string: PostgreSQL's XML exports.
var textQueries = map[string]bool{
	"query_to_xml": true, "query_to_xmlschema": true, "query_to_xml_and_xmlschema": true,
	"table_to_xml": true, "table_to_xmlschema": true, "table_to_xml_and_xmlschema": true,
	"schema_to_xml": true, "schema_to_xml_and_xmlschema": true, "database_to_xml": true,
	"database_to_xml_and_xmlschema": true, "cursor_to_xml": true,
}

// parens returns, for each token, the index of the innermost parenthesis
// open around it (-1 for none), and which parentheses open a query.
func parens(toks []sqltext.Token) (open []int, query map[int]bool) {
	open = make([]int, len(toks))
	query = map[int]bool{}
	var stack []int
	for i, t := range toks {
		if t.IsPunct(")") && len(stack) > 0 {
			stack = stack[:len(stack)-1]
		}
		open[i] = -1
		if n := len(stack); n > 0 {
			open[i] = stack[n-1]
		}
		if t.IsPunct("(") {
			stack = append(stack, i)
			if i+1 < len(toks) && (toks[i+1].IsWord("SELECT") || toks[i+1].IsWord("WITH") || toks[i+1].IsWord("VALUES") || toks[i+1].IsWord("TABLE")) {
				query[i] = true
			}
		}
	}
	return open, query
}

// nestedIn reports whether toks[i] is inside a parenthesised query.
func nestedIn(open []int, query map[int]bool, i int) bool {
	for p := open[i]; p >= 0; p = open[p] {
		if query[p] {
			return true
		}
	}
	return false
}

// harmless reports whether the ref at i only counts, tests or is compared
// with a token: count(email), email IS NULL, email = '<masked:...>',
// email IN ('<masked:...>', ...), or an ORDER BY or GROUP BY item that is
// the name alone, at a query's level.
func (s *stmtScan) harmless(i int, open []int, query map[int]bool) bool {
	t := s.toks
	if p := open[i]; p > 0 && t[p-1].IsWord("COUNT") && (p < 2 || !t[p-2].IsPunct(".")) {
		return true // the aggregate, not a function of some schema that has its name
	}
	start := i // the start of a qualified name
	for start >= 2 && t[start-1].IsPunct(".") && isName(t[start-2]) {
		start -= 2
	}
	end := i + 1
	if t[i].Kind == sqltext.TokString {
		start, end = i, i+1
	}
	next := func(k int) sqltext.Token {
		if end+k < len(t) {
			return t[end+k]
		}
		return sqltext.Token{}
	}
	switch {
	case next(0).IsWord("IS") && (next(1).IsWord("NULL") || next(1).IsWord("NOT") && next(2).IsWord("NULL")):
		return true
	case s.isToken(end+1) && next(0).IsPunct("=") || start >= 2 && t[start-1].IsPunct("=") && s.isToken(start-2):
		return true
	case t[i].Kind == sqltext.TokString && s.isToken(i) && (next(0).IsPunct("=") || start > 0 && t[start-1].IsPunct("=")):
		return true // a token compared with anything is a bound value's equality
	case next(0).IsWord("IN") && s.tokenList(end+1):
		return true
	case t[i].Kind == sqltext.TokString && s.inTokenList(i):
		return true
	}
	return s.plainOrderItem(start, end, open, query)
}

// isToken reports whether toks[i] is a string literal that is a token.
func (s *stmtScan) isToken(i int) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].Kind == sqltext.TokString && s.ref[i]
}

// tokenList reports whether toks[i] opens a list of tokens: ('<masked:...>', ...).
func (s *stmtScan) tokenList(i int) bool {
	if i >= len(s.toks) || !s.toks[i].IsPunct("(") {
		return false
	}
	for j := i + 1; j < len(s.toks); j += 2 {
		if !s.isToken(j) || j+1 >= len(s.toks) {
			return false
		}
		if s.toks[j+1].IsPunct(")") {
			return true
		}
		if !s.toks[j+1].IsPunct(",") {
			return false
		}
	}
	return false
}

// inTokenList reports whether the token at i is in a list of tokens after
// a name and IN: email IN ('<masked:...>', ...).
func (s *stmtScan) inTokenList(i int) bool {
	j := i
	for j > 0 && (s.isToken(j) || s.toks[j].IsPunct(",")) {
		j--
	}
	return j >= 2 && s.toks[j].IsPunct("(") && s.toks[j-1].IsWord("IN") && isName(s.toks[j-2]) && s.tokenList(j)
}

// plainOrderItem reports whether toks[start:end] is an item of its own of
// an ORDER BY or GROUP BY of a query (not of an aggregate's arguments nor
// WITHIN GROUP, whose value it may become).
func (s *stmtScan) plainOrderItem(start, end int, open []int, query map[int]bool) bool {
	t := s.toks
	if p := open[start]; p >= 0 && !query[p] {
		return false
	}
	if end < len(t) {
		n := t[end]
		if !(n.IsPunct(",") || n.IsPunct(")") || n.IsPunct(";") || n.IsWord("ASC") || n.IsWord("DESC") || n.IsWord("NULLS") ||
			n.Kind == sqltext.TokWord && (selectEnds[n.Text] || n.Text == "HAVING")) {
			return false
		}
	}
	if start == 0 || !t[start-1].IsPunct(",") && !t[start-1].IsWord("BY") {
		return false
	}
	depth := 0
	for j := start - 1; j >= 0; j-- {
		switch {
		case t[j].IsPunct(")"):
			depth++
		case t[j].IsPunct("("):
			if depth == 0 {
				return false
			}
			depth--
		case depth > 0:
		case t[j].IsWord("BY"):
			return j > 0 && (t[j-1].IsWord("ORDER") || t[j-1].IsWord("GROUP"))
		case t[j].Kind == sqltext.TokWord && orderStops[t[j].Text]:
			return false
		}
	}
	return false
}

// orderStops are the words that end the search for an ORDER BY or GROUP
// BY that a name may be an item of.
var orderStops = wordSet(`SELECT FROM WHERE ON USING HAVING JOIN WHEN THEN ELSE CASE AND OR NOT SET VALUES OVER PARTITION
	WITHIN SEPARATOR LIKE ILIKE BETWEEN IN IS LIMIT OFFSET RETURNING`)

// starEnds reports whether toks[i] may follow a star item: a comma, a
// closing parenthesis, a word that ends a select list, or the end.
func starEnds(toks []sqltext.Token, i int) bool {
	if i >= len(toks) {
		return true
	}
	t := toks[i]
	return t.IsPunct(",") || t.IsPunct(")") || t.Kind == sqltext.TokWord && selectEnds[t.Text]
}

// fromItems returns the indices of the tokens that start an item of a
// FROM list, at any depth: the token after FROM, JOIN, a comma of a FROM
// list, or the parenthesis of a parenthesised join, past LATERAL and
// ONLY. Such an item is a table's name, a function's, or the
// parenthesis of a derived table (a subquery, TABLE, VALUES) or of a
// join.
func fromItems(toks []sqltext.Token) []int {
	// A level is the statement, then each open parenthesis; list says
	// that it may hold a FROM list: a query's, or a parenthesised join's.
	type level struct{ list, query, from bool }
	levels := []level{{list: true}}
	var starts []int
	start := map[int]bool{}
	for i, t := range toks {
		top := &levels[len(levels)-1]
		switch {
		case t.IsPunct("("):
			q := queryParen(toks, i)
			join := !q && start[i] // (customers c JOIN orders o ON ...)
			levels = append(levels, level{list: q || join, query: q, from: join})
			if join && i+1 < len(toks) {
				j := skipFromWords(toks, i+1)
				starts, start[j] = append(starts, j), true
			}
			continue
		case t.IsPunct(")"):
			if len(levels) > 1 {
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
		if !top.from || !top.list {
			continue // not a FROM list: extract(year FROM d)
		}
		if j := skipFromWords(toks, i+1); j < len(toks) {
			starts, start[j] = append(starts, j), true
		}
	}
	return starts
}

// skipFromWords returns the index of the first token from i that is not
// LATERAL or ONLY.
func skipFromWords(toks []sqltext.Token, i int) int {
	for i < len(toks) && (toks[i].IsWord("LATERAL") || toks[i].IsWord("ONLY")) {
		i++
	}
	return i
}

// queryParen reports whether the parenthesis at toks[i] opens a query.
func queryParen(toks []sqltext.Token, i int) bool {
	return i+1 < len(toks) && (toks[i+1].IsWord("SELECT") || toks[i+1].IsWord("WITH") || toks[i+1].IsWord("VALUES") || toks[i+1].IsWord("TABLE"))
}

// wholeRows returns the tokens of a PostgreSQL statement that may be
// whole-row references, which name neither a column nor a star: SELECT c
// FROM customers c, row_to_json(c), x::text. They are the uses, neither
// qualified nor qualifying, of a name that the statement puts in a FROM
// or JOIN other than there: a table's last name part or its alias, and
// the alias of a derived table or a table function, at any depth, whose
// output can carry a masked value (its parentheses hold a ref, a star or
// TABLE: (SELECT * FROM customers) x, (TABLE customers) x, LATERAL
// (SELECT c.*) x). nested says which of them are inside a parenthesised
// query. ref marks the refs found so far.
func wholeRows(toks []sqltext.Token, ref []bool) (uses []int, nested []bool) {
	names := map[string]bool{}
	at := map[int]bool{}
	alias := func(k int) {
		if k < len(toks) && toks[k].IsWord("AS") {
			k++
		}
		if k < len(toks) && isName(toks[k]) && !(toks[k].Kind == sqltext.TokWord && (aliasKeywords[toks[k].Text] || selectEnds[toks[k].Text])) {
			names[toks[k].Text], at[k] = true, true
		}
	}
	carries := func(open, end int) bool {
		for i := open + 1; i < end; i++ {
			if ref[i] || isStar(toks, i) || toks[i].IsWord("TABLE") {
				return true
			}
		}
		return false
	}
	for _, j := range fromItems(toks) {
		if toks[j].IsPunct("(") {
			// A derived table, or a parenthesised join whose items are
			// items of their own.
			if end := closing(toks, j); queryParen(toks, j) && carries(j, end) {
				alias(end + 1)
			}
			continue
		}
		for j+2 < len(toks) && isName(toks[j]) && toks[j+1].IsPunct(".") && isName(toks[j+2]) {
			j += 2 // schema.table: the table
		}
		if !isName(toks[j]) || toks[j].Kind == sqltext.TokWord && aliasKeywords[toks[j].Text] {
			continue
		}
		names[toks[j].Text], at[j] = true, true
		if j+1 < len(toks) && toks[j+1].IsPunct("(") {
			// A table function: its alias carries what its arguments do.
			if end := closing(toks, j+1); carries(j+1, end) {
				alias(end + 1)
			}
			continue
		}
		alias(j + 1)
	}
	open, query := parens(toks)
	for i, t := range toks {
		if !isName(t) || !names[t.Text] || at[i] ||
			i > 0 && toks[i-1].IsPunct(".") || i+1 < len(toks) && (toks[i+1].IsPunct(".") || toks[i+1].IsPunct("(")) {
			continue
		}
		uses, nested = append(uses, i), append(nested, nestedIn(open, query, i))
	}
	return uses, nested
}

// scalarStar reports whether the star or TABLE at toks[i] is the output
// of a nested query whose single column becomes a value with no name of
// its own: a scalar subquery, IN (...), ARRAY(...), = ANY (...). A
// derived table's, a CTE's body's (whose columns keep their names) and
// EXISTS' are not; nor is that of a statement in parentheses.
func scalarStar(toks []sqltext.Token, open []int, query map[int]bool, derived map[int]bool, i int) bool {
	p := open[i]
	for p >= 0 && !query[p] {
		p = open[p]
	}
	if p <= 0 || derived[p] {
		return false
	}
	before := toks[p-1]
	return !(before.IsWord("EXISTS") || before.IsWord("AS") || before.IsWord("MATERIALIZED"))
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
	if s.setOp || s.renames || s.flows {
		return allTrue(out)
	}
	aligned := len(s.items) == n
	for _, it := range s.items {
		if s.wholeStar(it) {
			aligned = false
		}
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
