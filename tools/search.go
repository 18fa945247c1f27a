package tools

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// maxSearchBytes bounds one search_schema result, and maxHitShare the
// line of one hit in it: a wider line is cut to its keys and the columns
// the query matches. maxHitColumns bounds the matching columns named.
// maxEchoedQuery bounds the query as the result repeats it: the model
// wrote it, and a long one would take the room of the matches.
const (
	maxSearchBytes = 8 << 10
	maxHitShare    = 2 << 10
	maxHitColumns  = 20
	maxEchoedQuery = 200
)

// searchHit is a table, or a set of shards, that a query matches.
type searchHit struct {
	t    *engine.Table
	set  *engine.ShardSet
	name string // as the result names it
	// tier is 0 for the query being the name, 1 for a name that starts
	// with it, 2 for the others.
	tier    int
	words   int      // the query's words found
	found   []string // which
	rarity  float64  // how rare they are among the tables
	columns []int    // the columns that match
}

// search ranks the tables and sets of shards that the query matches:
// the exact and prefix name matches first (regardless of case), then
// those matching more of its words, then rarer words.
func search(s *engine.Schema, query string) []searchHit {
	// A name as SQL quotes it is the name.
	lower := strings.ToLower(strings.Trim(strings.TrimSpace(query), "\"`[]"))
	wanted := map[string]bool{}
	for _, w := range sqltext.Terms(query) {
		wanted[w] = true
	}
	sets := s.Shards()
	inSet := map[int]*engine.ShardSet{}
	for i := range sets {
		for _, m := range sets[i].Members {
			inSet[m] = &sets[i]
		}
	}
	// df counts the tables each word is found in, for its rarity.
	df := map[string]int{}
	var hits []searchHit
	for i := range s.Tables {
		t := &s.Tables[i]
		set := inSet[i]
		name := strings.ToLower(t.Name)
		qualified := strings.ToLower(t.QualifiedName())
		h := searchHit{t: t, name: s.TableName(t), tier: 2}
		switch {
		case name == lower || qualified == lower:
			h.tier, set = 0, nil // the one shard the query names
		case set != nil && set.Members[0] != i:
			continue // the set is one hit, at its first shard
		case set != nil && strings.EqualFold(s.SetName(set), lower) || set != nil && strings.EqualFold(set.Pattern, lower):
			h.tier = 0
		case strings.HasPrefix(name, lower) || strings.HasPrefix(qualified, lower):
			h.tier = 1
		}
		h.set = set
		if set != nil {
			h.name = s.SetName(set)
		}
		found := map[string]bool{}
		for _, w := range sqltext.Terms(t.Name + " " + t.Schema + " " + t.Comment) {
			if wanted[w] {
				found[w] = true
			}
		}
		for ci, c := range t.Columns {
			hit := false
			for _, w := range sqltext.Terms(c.Name + " " + c.Comment) {
				if wanted[w] {
					found[w], hit = true, true
				}
			}
			if hit || strings.Contains(strings.ToLower(c.Name), lower) {
				h.columns = append(h.columns, ci)
			}
		}
		if h.tier == 2 && len(found) == 0 && len(h.columns) == 0 && !strings.Contains(qualified, lower) {
			continue
		}
		h.words = len(found)
		for w := range found {
			df[w]++
			h.found = append(h.found, w)
		}
		hits = append(hits, h)
	}
	n := float64(len(s.Tables))
	for i := range hits {
		for _, w := range hits[i].found {
			hits[i].rarity += math.Log(1 + n/float64(df[w]))
		}
	}
	slices.SortStableFunc(hits, func(a, b searchHit) int {
		return cmp.Or(a.tier-b.tier, b.words-a.words, cmp.Compare(b.rarity, a.rarity))
	})
	return hits
}

// searchResult fills a result with the hits that fit maxSearchBytes, each
// line cut to maxHitShare, and counts the others.
func searchResult(s *engine.Schema, query string, hits []searchHit) *SchemaMatches {
	res := &SchemaMatches{Query: echoedQuery(query), Matches: []SchemaMatch{}}
	size := jsonSize(res) + len(`,"more":100000`)
	for _, h := range hits {
		if len(res.Matches) >= maxSearch {
			break
		}
		m := SchemaMatch{Table: h.name}
		for _, ci := range h.columns[:min(len(h.columns), maxHitColumns)] {
			m.Columns = append(m.Columns, h.t.Columns[ci].Name)
		}
		if n := len(h.columns) - maxHitColumns; n > 0 {
			m.Columns = append(m.Columns, "… "+plural(n, "more column"))
		}
		head, body := "", ""
		if h.set != nil {
			head, body = s.SetLine(h.set)
			head += "; shards: " + s.ShardNames(h.set, 12)
		}
		m.Line = head + body
		if h.set == nil {
			m.Line = s.Line(h.t)
		}
		if len(m.Line) > maxHitShare || size+jsonSize(m)+1 > maxSearchBytes {
			if head != "" {
				head += " "
			}
			room := min(maxHitShare, maxSearchBytes-size-jsonSize(SchemaMatch{Table: m.Table, Columns: m.Columns})-16)
			keep := func(i int) bool { return slices.Contains(h.columns, i) }
			if m.Line = s.CutLine(h.t, head, keep, room); m.Line == "" {
				continue
			}
		}
		if size+jsonSize(m)+1 > maxSearchBytes {
			continue
		}
		size += jsonSize(m) + 1
		res.Matches = append(res.Matches, m)
	}
	res.More = len(hits) - len(res.Matches)
	return res
}

// echoedQuery is the query as the result repeats it: cut to
// maxEchoedQuery bytes, at a character's start, with "…" when cut.
func echoedQuery(query string) string {
	if len(query) <= maxEchoedQuery {
		return query
	}
	n := maxEchoedQuery
	for n > 0 && !utf8.RuneStart(query[n]) {
		n--
	}
	return query[:n] + "…"
}

// jsonSize is the size of v written as JSON.
func jsonSize(v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(data)
}
