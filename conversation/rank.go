package conversation

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// Weights of a question's word found in a table's name, its schema's
// name, a column's name, and a comment; each is multiplied by the word's
// rarity among the tables.
const (
	weightTable   = 4
	weightSchema  = 3
	weightColumn  = 2
	weightComment = 1
	// weightColumnName is an identifier of the question that is a
	// column's whole name (user_pseudo_id).
	weightColumnName = 6
)

// maxRanked bounds the tables whose foreign-key neighbours follow them in
// the card: the neighbours of a table far down the ranking are noise.
// maxNeighbours bounds those of one table, as a table that hundreds
// reference would crowd out the rest.
const (
	maxRanked     = 12
	maxNeighbours = 8
)

// schemaIndex is what ranking needs of a schema, computed once per schema
// read, as the schema is cached and the ranking runs every turn. Its
// entries are the tables, a set of shards being one entry.
type schemaIndex struct {
	schema  *engine.Schema
	entries []entry
	lines   []string // each entry's line
	// whole is every table's own line, when they fit the budget
	// together, and size the bytes it takes.
	whole []string
	size  int
	// terms maps a term to the entries it appears in, with its weight
	// there (the highest where it appears several ways).
	terms map[string][]termHit
	// names maps a name in lower case (a table's, its qualified name, a
	// set's pattern) to the entries of that name; columns a column's.
	names   map[string][]nameHit
	columns map[string][]int
	// spaced are the entries whose names hold characters that split a
	// question's words ("order details").
	spaced []int
	// neighbours lists, per entry, the entries its foreign keys link it
	// to: first those it references, then those that reference it.
	neighbours [][]int
}

// entry is a table, or a set of shards.
type entry struct {
	tables []int // in the schema: one, or the shards in key order
	set    *engine.ShardSet
	// head and body make a set's line: "events_YYYYMMDD: 92 tables,
	// 20201101 .. 20210131" and " (event_date date, ...)".
	head, body string
	// colWords are the words of each column's name, for cutting the
	// line to the columns a question matches; minCut is the shortest the
	// cut line can be.
	colWords [][]string
	minCut   int
}

// termHit is a term found in entry e with weight w.
type termHit struct {
	entry  int
	weight float64
}

// nameHit is an entry of a name, and which of its shards the name is
// (-1 for the entry itself).
type nameHit struct {
	entry, shard int
}

// newSchemaIndex indexes s.
func newSchemaIndex(s *engine.Schema) *schemaIndex {
	ix := &schemaIndex{schema: s, terms: map[string][]termHit{}, names: map[string][]nameHit{}, columns: map[string][]int{}}
	entryOf := ix.group(s)
	byName := map[[2]string]int{}
	for i := range s.Tables {
		byName[[2]string{s.Tables[i].Schema, s.Tables[i].Name}] = i
	}
	vocab := map[string]bool{}
	entryTerms := make([]map[string]float64, len(ix.entries))
	for e := range ix.entries {
		en := &ix.entries[e]
		t := &s.Tables[en.tables[0]]
		best := map[string]float64{}
		addWords := func(terms []string, w float64) {
			for _, term := range terms {
				best[term] = max(best[term], w)
				vocab[term] = true
			}
		}
		add := func(text string, w float64) {
			if text != "" {
				addWords(identWords(text), w)
			}
		}
		name := t.Name
		if en.set != nil {
			name = en.set.Pattern
		}
		add(name, weightTable)
		add(t.Schema, weightSchema)
		add(t.Comment, weightComment)
		en.colWords = make([][]string, len(t.Columns))
		// At least the name and "(and N more columns (describe_table))".
		en.minCut = len(s.TableName(t)) + len(en.head) + len("(and  more columns (describe_table))") + len(strconv.Itoa(len(t.Columns)))
		for ci, c := range t.Columns {
			en.colWords[ci] = identWords(c.Name)
			addWords(en.colWords[ci], weightColumn)
			add(c.Comment, weightComment)
			lower := strings.ToLower(c.Name)
			if n := ix.columns[lower]; len(n) == 0 || n[len(n)-1] != e {
				ix.columns[lower] = append(n, e)
			}
		}
		entryTerms[e] = best
		ix.addName(name, t.Schema, e, -1)
		if en.set != nil {
			for p, m := range en.set.Members {
				ix.addName(s.Tables[m].Name, t.Schema, e, p)
			}
		}
	}
	for e, best := range entryTerms {
		for term, w := range best {
			// A compound name counts as its parts too, at the same weight.
			for _, part := range splitCompound(term, vocab) {
				if best[part] < w {
					ix.terms[part] = append(ix.terms[part], termHit{e, w})
				}
			}
			ix.terms[term] = append(ix.terms[term], termHit{e, w})
		}
	}
	ix.link(s, byName, entryOf)
	return ix
}

// group makes the entries: the sets of shards, each where its first
// shard is in the catalog, and the other tables. It returns each table's
// entry.
func (ix *schemaIndex) group(s *engine.Schema) []int {
	sets := s.Shards()
	setOf := map[int]int{}
	for k, set := range sets {
		for _, m := range set.Members {
			setOf[m] = k
		}
	}
	entryOf := make([]int, len(s.Tables))
	for i := range s.Tables {
		k, sharded := setOf[i]
		if sharded && sets[k].Members[0] != i {
			continue
		}
		e := len(ix.entries)
		if !sharded {
			ix.entries = append(ix.entries, entry{tables: []int{i}})
			ix.lines = append(ix.lines, s.Line(&s.Tables[i]))
		} else {
			set := &sets[k]
			for _, m := range set.Members {
				entryOf[m] = e
			}
			en := entry{tables: set.Members, set: set}
			en.head, en.body = s.SetLine(set)
			ix.entries = append(ix.entries, en)
			ix.lines = append(ix.lines, en.head+en.body)
		}
		entryOf[i] = e
	}
	for i := range s.Tables {
		line := ix.lines[entryOf[i]]
		if len(ix.entries[entryOf[i]].tables) > 1 {
			line = s.Line(&s.Tables[i])
		}
		ix.whole = append(ix.whole, line)
		ix.size += len(line) + 1
	}
	return entryOf
}

// addName records name (and schema.name) as entry e's, or its shard p's.
func (ix *schemaIndex) addName(name, schema string, e, p int) {
	lower := strings.ToLower(name)
	ix.names[lower] = append(ix.names[lower], nameHit{e, p})
	if schema != "" {
		q := strings.ToLower(schema) + "." + lower
		ix.names[q] = append(ix.names[q], nameHit{e, p})
	}
	if p < 0 && strings.ContainsFunc(lower, func(r rune) bool { return r == ' ' || r == '-' }) {
		ix.spaced = append(ix.spaced, e)
	}
}

// link finds each entry's foreign-key neighbours.
func (ix *schemaIndex) link(s *engine.Schema, byName map[[2]string]int, entryOf []int) {
	ix.neighbours = make([][]int, len(ix.entries))
	referrers := make([][]int, len(ix.entries))
	for e, en := range ix.entries {
		for _, fk := range s.Tables[en.tables[0]].ForeignKeys {
			j, ok := byName[[2]string{fk.RefSchema, fk.RefTable}]
			if !ok || entryOf[j] == e || slices.Contains(ix.neighbours[e], entryOf[j]) {
				continue
			}
			ix.neighbours[e] = append(ix.neighbours[e], entryOf[j])
			referrers[entryOf[j]] = append(referrers[entryOf[j]], e)
		}
	}
	for e := range ix.neighbours {
		ix.neighbours[e] = append(ix.neighbours[e], referrers[e]...)
	}
}

// ranking is the order of the entries for a question.
type ranking struct {
	order []int
	// ranked counts the entries at the head of order that the question
	// named or matched, with their neighbours.
	ranked int
	// picked are, per set of shards, the positions of the shards that the
	// question's dates or names pick.
	picked map[int][]int
	terms  map[string]bool
	idents map[string]bool
	// hit marks the entries where some word of the question is found:
	// only their columns can match it.
	hit []bool
}

// matchesColumn reports whether the question names the column or one of
// its words, other than the words of the table's own name (of which
// every column of dicom_all may be made).
func (r ranking) matchesColumn(name string, words, tableWords []string) bool {
	if r.idents[strings.ToLower(name)] {
		return true
	}
	for _, w := range words {
		if r.terms[w] && !slices.Contains(tableWords, w) {
			return true
		}
	}
	return false
}

// rank orders the entries, those that matter for the question first: the
// tables it names, then the best scored, then their foreign-key
// neighbours, then the other scored tables, then the rest in the
// catalog's order.
//
// A word scores by where it is found (weightTable ...) times its rarity,
// the inverse document frequency among the entries, so that a word of
// every table name counts for little; a table matching more of the
// question's words gains a quarter of its score for each beyond the
// first.
func (ix *schemaIndex) rank(question string) ranking {
	r := ranking{picked: map[int][]int{}, terms: map[string]bool{}, idents: map[string]bool{}}
	var named []int
	isNamed := make([]bool, len(ix.entries))
	name := func(e int) {
		if !isNamed[e] {
			isNamed[e] = true
			named = append(named, e)
		}
	}
	tokens := nameTokens(question)
	for _, tok := range tokens {
		r.idents[tok] = true
		for _, h := range ix.names[tok] {
			name(h.entry)
			if h.shard >= 0 && !slices.Contains(r.picked[h.entry], h.shard) {
				r.picked[h.entry] = append(r.picked[h.entry], h.shard)
			}
		}
	}
	if len(ix.spaced) > 0 {
		lower := strings.ToLower(question)
		for _, e := range ix.spaced {
			if strings.Contains(lower, strings.ToLower(ix.schema.Tables[ix.entries[e].tables[0]].Name)) {
				name(e)
			}
		}
	}

	score := make([]float64, len(ix.entries))
	matched := make([]int, len(ix.entries))
	n := float64(len(ix.entries))
	qwords := identWords(question)
	// words counts the question's words a term stands for: two for two
	// words written as one name ("push notifications" finds
	// pushnotification).
	type term struct {
		text  string
		words int
	}
	var terms []term
	for i, w := range qwords {
		if isStopWord(w) || isQuestionWord(w) {
			continue
		}
		terms = append(terms, term{w, 1})
		if i+1 < len(qwords) {
			terms = append(terms, term{qwords[i] + qwords[i+1], 2})
		}
	}
	for _, tm := range terms {
		if r.terms[tm.text] {
			continue
		}
		r.terms[tm.text] = true
		hits := ix.terms[tm.text]
		if len(hits) == 0 {
			continue
		}
		idf := math.Log(1 + n/float64(len(hits)))
		for _, h := range hits {
			score[h.entry] += h.weight * idf * float64(tm.words)
			matched[h.entry] += tm.words
		}
	}
	for _, tok := range tokens {
		if !strings.ContainsAny(tok, "_0123456789") {
			continue
		}
		hits := ix.columns[tok]
		idf := math.Log(1 + n/float64(max(len(hits), 1)))
		for _, e := range hits {
			score[e] += weightColumnName * idf
			matched[e]++
		}
	}
	var scored []int
	r.hit = make([]bool, len(ix.entries))
	for e, sc := range score {
		if sc > 0 {
			r.hit[e] = true
			score[e] = sc * (1 + 0.25*float64(matched[e]-1))
			scored = append(scored, e)
		}
	}
	slices.SortFunc(scored, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), len(ix.lines[a])-len(ix.lines[b]), a-b)
	})

	r.order = make([]int, 0, len(ix.entries))
	placed := make([]bool, len(ix.entries))
	place := func(e int) {
		if !placed[e] {
			placed[e] = true
			r.order = append(r.order, e)
		}
	}
	top := append(named, scored[:min(len(scored), maxRanked)]...)
	for _, e := range top {
		place(e)
	}
	for _, e := range top {
		for _, j := range ix.neighbours[e][:min(len(ix.neighbours[e]), maxNeighbours)] {
			place(j)
		}
	}
	r.ranked = len(r.order)
	for _, e := range scored {
		place(e)
	}
	for e := range ix.entries {
		place(e)
	}
	for _, e := range r.order[:r.ranked] {
		if set := ix.entries[e].set; set != nil && len(r.picked[e]) == 0 {
			r.picked[e] = set.Pick(question)
		}
	}
	return r
}

// isQuestionWord reports whether a term of a question says how to answer
// rather than what about: "show", "per", "many".
func isQuestionWord(term string) bool {
	switch term {
	case "per", "each", "all", "show", "list", "many", "much", "give", "me", "by", "of", "in", "is", "to",
		"an", "do", "does", "did", "there", "their", "my", "our", "top", "most", "number":
		return true
	}
	return false
}
