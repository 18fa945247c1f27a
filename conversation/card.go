package conversation

import (
	"strconv"
	"strings"
)

// DefaultSchemaBudget bounds the schema card in the system prompt, in
// bytes, for a source that does not set schema_budget in sources.yaml.
const DefaultSchemaBudget = 12 << 10

// minSchemaBudget is the smallest budget honoured: below it the card
// could not hold a single table worth having. maxSchemaBudget is the
// largest: past it the card would crowd the model's context out.
const (
	minSchemaBudget = 1 << 10
	maxSchemaBudget = 256 << 10
)

// maxPicked bounds the shards a card names for a question's dates.
const maxPicked = 40

// card returns the schema card for question within budget bytes: every
// table's line when they all fit, else the tables that matter for the
// question first, each followed by its foreign-key neighbours so that
// join paths are complete, then as many others as fit, and a last line
// saying how many are not shown and that search_schema finds them.
// A set of shards is one line. A line wider than its share of the budget
// is cut rather than left out, so that a table that ranks is always on
// the card.
func (ix *schemaIndex) card(question string, budget int) string {
	if len(ix.entries) == 0 {
		return "(no tables)\n"
	}
	if ix.size <= budget {
		return strings.Join(ix.whole, "\n") + "\n"
	}
	r := ix.rank(question)
	total := len(ix.schema.Tables)
	reserve := len(notShown(total))
	var b strings.Builder
	shown := 0
	for pos, e := range r.order {
		room := budget - b.Len() - reserve - 1
		line := ix.lineFor(e, r.picked[e])
		most := share(budget, pos, r.ranked)
		if len(line) <= room && len(line) <= most {
			b.WriteString(line)
		} else if pos < r.ranked || len(line) > most {
			cut := ix.cutLine(e, r, min(room, most))
			if cut == "" {
				continue
			}
			b.WriteString(cut)
		} else {
			continue
		}
		b.WriteByte('\n')
		shown += len(ix.entries[e].tables)
	}
	if rest := total - shown; rest > 0 {
		b.WriteString(notShown(rest))
	}
	return b.String()
}

// share is the most of the budget a table's whole line may take at its
// place in the order: half for the first, a quarter for the next two, an
// eighth for the others; a wider line is cut.
func share(budget, pos, ranked int) int {
	switch {
	case pos == 0:
		return budget / 2
	case pos < 3 && pos < ranked:
		return budget / 4
	}
	return budget / 8
}

// notShown is the card's last line when n tables are left out.
func notShown(n int) string {
	what := strconv.Itoa(n) + " more tables are"
	if n == 1 {
		what = "1 more table is"
	}
	return "(" + what + " not shown here: call search_schema to find tables by name, column or comment, and describe_table for a table's full card.)\n"
}

// lineFor is an entry's line, and for a set of shards, the shards the
// question's dates pick, by name.
func (ix *schemaIndex) lineFor(e int, picked []int) string {
	en := &ix.entries[e]
	if en.set == nil || len(picked) == 0 {
		return ix.lines[e]
	}
	return en.head + ix.pickedText(en, picked) + en.body
}

// pickedText is "; for the question: events_20201201, ..." naming up to
// maxPicked shards.
func (ix *schemaIndex) pickedText(en *entry, picked []int) string {
	var b strings.Builder
	b.WriteString("; for the question: ")
	for i, p := range picked[:min(len(picked), maxPicked)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ix.schema.TableName(&ix.schema.Tables[en.set.Members[p]]))
	}
	if len(picked) > maxPicked {
		b.WriteString(" and " + strconv.Itoa(len(picked)-maxPicked) + " more")
	}
	return b.String()
}

// cutLine is an entry's line cut to fit room bytes: its name, its key and
// foreign-key columns, the columns the question matches, then how many
// more columns describe_table shows. It is "" when not even the name
// fits.
func (ix *schemaIndex) cutLine(e int, r ranking, room int) string {
	en := &ix.entries[e]
	if en.minCut > room {
		return ""
	}
	t := &ix.schema.Tables[en.tables[0]]
	head := ""
	if en.set != nil {
		head = en.head
		if len(r.picked[e]) > 0 {
			head += ix.pickedText(en, r.picked[e])
		}
		head += " "
	}
	tableWords := identWords(t.Name)
	return ix.schema.CutLine(t, head, func(i int) bool {
		return r.hit[e] && r.matchesColumn(t.Columns[i].Name, en.colWords[i], tableWords)
	}, room)
}
