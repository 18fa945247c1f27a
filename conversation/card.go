package conversation

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// DefaultSchemaBudget bounds the schema card in the system prompt, in
// bytes, for a source that does not set schema_budget in sources.yaml.
const DefaultSchemaBudget = 12 << 10

// minSchemaBudget is the smallest budget honoured: below it the card
// could not hold a single table worth having.
const minSchemaBudget = 1 << 10

// Weights of a question's word found in a table's name, in a column's
// name, and in a comment.
const (
	weightTable   = 4
	weightColumn  = 2
	weightComment = 1
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
// read, as the schema is cached and the ranking runs every turn: each
// table's line and the terms of its names and comments.
type schemaIndex struct {
	schema *engine.Schema
	lines  []string
	size   int // of all the lines, newlines included
	// terms maps a term to the tables it appears in, with its weight
	// there (the highest where it appears several ways).
	terms map[string][]termHit
	// neighbours lists, per table, the tables its foreign keys link it
	// to: first those it references, then those that reference it.
	neighbours [][]int
}

// termHit is a term found in table i with weight w.
type termHit struct {
	table, weight int
}

// newSchemaIndex indexes s.
func newSchemaIndex(s *engine.Schema) *schemaIndex {
	ix := &schemaIndex{schema: s, lines: make([]string, len(s.Tables)), terms: map[string][]termHit{},
		neighbours: make([][]int, len(s.Tables))}
	byName := map[[2]string]int{}
	for i := range s.Tables {
		t := &s.Tables[i]
		byName[[2]string{t.Schema, t.Name}] = i
		ix.lines[i] = s.Line(t)
		ix.size += len(ix.lines[i]) + 1
		best := map[string]int{}
		add := func(text string, w int) {
			for _, term := range sqltext.Terms(text) {
				best[term] = max(best[term], w)
			}
		}
		add(t.Name, weightTable)
		add(t.Comment, weightComment)
		for _, c := range t.Columns {
			add(c.Name, weightColumn)
			add(c.Comment, weightComment)
		}
		for term, w := range best {
			ix.terms[term] = append(ix.terms[term], termHit{i, w})
		}
	}
	referrers := make([][]int, len(s.Tables))
	for i := range s.Tables {
		for _, fk := range s.Tables[i].ForeignKeys {
			j, ok := byName[[2]string{fk.RefSchema, fk.RefTable}]
			if !ok || j == i {
				continue
			}
			ix.neighbours[i] = append(ix.neighbours[i], j)
			referrers[j] = append(referrers[j], i)
		}
	}
	for i := range ix.neighbours {
		ix.neighbours[i] = append(ix.neighbours[i], referrers[i]...)
	}
	return ix
}

// card returns the schema card for question within budget bytes: every
// table's line when they all fit, else the tables that matter for the
// question, each followed by its foreign-key neighbours so that join
// paths are complete, then as many others as fit, and a last line saying
// how many are not shown and that search_schema finds them.
func (ix *schemaIndex) card(question string, budget int) string {
	if len(ix.lines) == 0 {
		return "(no tables)\n"
	}
	if ix.size <= budget {
		return strings.Join(ix.lines, "\n") + "\n"
	}
	order := ix.rank(question)
	var b strings.Builder
	shown := make([]bool, len(ix.lines))
	count := 0
	for _, i := range order {
		if shown[i] {
			continue
		}
		// Room is kept for the last line, however many it counts.
		if b.Len()+len(ix.lines[i])+1+len(notShown(len(ix.lines))) > budget {
			continue
		}
		b.WriteString(ix.lines[i])
		b.WriteByte('\n')
		shown[i] = true
		count++
	}
	if rest := len(ix.lines) - count; rest > 0 {
		b.WriteString(notShown(rest))
	}
	return b.String()
}

// notShown is the card's last line when n tables are left out.
func notShown(n int) string {
	what := strconv.Itoa(n) + " more tables are"
	if n == 1 {
		what = "1 more table is"
	}
	return "(" + what + " not shown here: call search_schema to find tables by name, column or comment, and describe_table for a table's full card.)\n"
}

// rank returns every table's index, those that matter for the question
// first: the best scored, then their foreign-key neighbours, then the
// other scored tables, then the rest in the catalog's order.
func (ix *schemaIndex) rank(question string) []int {
	score := map[int]int{}
	seen := map[string]bool{}
	for _, term := range sqltext.Terms(question) {
		if seen[term] || isStopWord(term) || isQuestionWord(term) {
			continue
		}
		seen[term] = true
		for _, h := range ix.terms[term] {
			score[h.table] += h.weight
		}
	}
	scored := make([]int, 0, len(score))
	for i := range score {
		scored = append(scored, i)
	}
	slices.SortFunc(scored, func(a, b int) int {
		return cmp.Or(score[b]-score[a], len(ix.lines[a])-len(ix.lines[b]), a-b)
	})
	order := make([]int, 0, len(ix.lines))
	placed := make([]bool, len(ix.lines))
	place := func(i int) {
		if !placed[i] {
			placed[i] = true
			order = append(order, i)
		}
	}
	top := scored[:min(len(scored), maxRanked)]
	for _, i := range top {
		place(i)
	}
	for _, i := range top {
		for _, j := range ix.neighbours[i][:min(len(ix.neighbours[i]), maxNeighbours)] {
			place(j)
		}
	}
	for _, i := range scored {
		place(i)
	}
	for i := range ix.lines {
		place(i)
	}
	return order
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
