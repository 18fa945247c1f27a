package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// TestSearchSchemaAtScale: on every engine, with yearly shards in upper
// case, tables of 400 columns and a table that is a copy of another with
// other columns, search_schema finds a shard by its name in any case,
// answers a set of shards as one hit, keeps within its budget on the
// widest tables and says how many more matched; describe_table takes a
// set's pattern and lists its shards.
func TestSearchSchemaAtScale(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		q := &engine.Schema{Dialect: e.dialect}
		var ddl []string
		for y := 2010; y <= 2024; y++ {
			ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (storm_id int PRIMARY KEY, state varchar(20), deaths int)", q.Ident(fmt.Sprintf("STORMS_%d", y))))
		}
		ddl = append(ddl, "CREATE TABLE order_items (id int PRIMARY KEY, qty int)", "CREATE TABLE order_items_2 (id int PRIMARY KEY, sku varchar(20))")
		// Names that need quotes: a space and Unicode, a keyword, a quote.
		odd := []string{"Café Ventes", "select", `we"ird`}
		for _, name := range odd {
			ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, %s int)", q.Ident(name), q.Ident(name+" total")))
		}
		for w := range 12 {
			var cols []string
			for c := range 400 {
				cols = append(cols, fmt.Sprintf("dicom_attribute_value_%03d int", c))
			}
			ddl = append(ddl, fmt.Sprintf("CREATE TABLE dicom_series_%c (id int PRIMARY KEY, %s)", 'a'+w, strings.Join(cols, ", ")))
		}
		dbtest.Exec(t, src, ddl...)
		s := NewSet(openDB(t, src, engine.Options{}), nil)
		largest := 0
		search := func(query string) *SchemaMatches {
			t.Helper()
			res := runTool(t, s, ToolSearchSchema, mustJSON(t, map[string]string{"query": query})).(*SchemaMatches)
			data, err := json.Marshal(res)
			if err != nil || len(data) > maxSearchBytes {
				t.Errorf("search %q: %d bytes, %v", query, len(data), err)
			}
			largest = max(largest, len(data))
			return res
		}
		defer func() { t.Logf("%s: the largest search_schema result is %d bytes", e.name, largest) }()

		// A name found by search describes its table, quoted or bare.
		for _, name := range odd {
			res := search(name)
			if len(res.Matches) == 0 || res.Matches[0].Table != q.Ident(name) {
				t.Errorf("search %q = %+v, want %s first", name, res, q.Ident(name))
				continue
			}
			for _, asked := range []string{name, res.Matches[0].Table} {
				cards := runTool(t, s, ToolDescribeTable, mustJSON(t, map[string]string{"table": asked})).(*TableCards)
				if len(cards.Tables) != 1 || !strings.Contains(cards.Tables[0], q.Ident(name+" total")) {
					t.Errorf("describe_table %q = %+v", asked, cards)
				}
			}
		}

		storm := q.Ident("STORMS_2019")
		if res := search("storms_2019"); len(res.Matches) == 0 || res.Matches[0].Table != storm || !strings.HasPrefix(res.Matches[0].Line, storm+"(") {
			t.Errorf("search storms_2019 = %+v, want %s first", res, storm)
		}
		res := search("storms")
		if len(res.Matches) != 1 || res.Matches[0].Table != "STORMS_YYYY" || !strings.Contains(res.Matches[0].Line, "15 tables, 2010 .. 2024") {
			t.Errorf("search storms = %+v, want the set as one hit", res)
		}
		if res := search("order_items"); len(res.Matches) != 2 || res.Matches[0].Table != "order_items" || res.Matches[1].Table != "order_items_2" {
			t.Errorf("search order_items = %+v, want the exact name, then the prefix", res)
		}

		res = search("dicom attribute value")
		if len(res.Matches) == 0 || res.More == 0 || res.More+len(res.Matches) != 12 {
			t.Errorf("search dicom: %d matches, %d more, want 12 in all", len(res.Matches), res.More)
		}
		for _, m := range res.Matches {
			if !strings.Contains(m.Line, "more columns (describe_table)") {
				t.Errorf("a line of 400 columns is not cut: %.200s", m.Line)
			}
		}

		// A set's pattern, in any case, is the set: one hit, first.
		for _, pattern := range []string{"storms_yyyy", "STORMS_YYYY"} {
			res := search(pattern)
			if len(res.Matches) != 1 || res.Matches[0].Table != "STORMS_YYYY" || !strings.Contains(res.Matches[0].Line, "15 tables, 2010 .. 2024") ||
				!strings.Contains(res.Matches[0].Line, storm) {
				t.Errorf("search %s = %+v, want the set, its shards named", pattern, res)
			}
		}

		// However long the query, the result keeps within its budget, the
		// query it repeats cut.
		long := strings.Repeat("dicom attribute value storms deaths ", 460)
		res = search(long)
		if len(long) < 16<<10 || len(res.Matches) == 0 || len(res.Query) > maxEchoedQuery+len("…") || !strings.HasSuffix(res.Query, "…") {
			t.Errorf("search of %d bytes: %d matches, query echoed in %d bytes", len(long), len(res.Matches), len(res.Query))
		}

		cards := runTool(t, s, ToolDescribeTable, `{"table":"storms_yyyy"}`).(*TableCards)
		if len(cards.Tables) != 1 || !strings.HasPrefix(cards.Tables[0], "shards STORMS_YYYY: 15 tables") || !strings.Contains(cards.Tables[0], storm) {
			t.Errorf("describe_table storms_yyyy = %+v", cards)
		}
	})
}

// searchSchema is tables of the given names and columns, in order.
func searchSchema(tables ...[]string) *engine.Schema {
	s := &engine.Schema{Dialect: sqltext.DialectPostgres}
	for _, t := range tables {
		tb := engine.Table{Name: t[0], Rows: -1, Columns: []engine.Column{{Name: "id", Type: "int"}}}
		for _, c := range t[1:] {
			tb.Columns = append(tb.Columns, engine.Column{Name: c, Type: "text", Nullable: true})
		}
		s.Tables = append(s.Tables, tb)
	}
	return s
}

// hitNames are the names of the hits, in order.
func hitNames(hits []searchHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.name)
	}
	return out
}

// TestSearchOrder: after the exact and prefix name matches (tested in
// TestSearchSchemaAtScale), the tables
// matching more of the query's words come first, even when one rarer word
// weighs more than their words together, and among those matching as
// many, the rarer words first, whatever the catalog's order.
func TestSearchOrder(t *testing.T) {
	s := searchSchema([]string{"memos", "x"}, []string{"audit", "code", "status"}, []string{"logs", "code", "status"},
		[]string{"events", "code", "status"}, []string{"users", "code", "status"}, []string{"orders", "code", "status"},
		[]string{"carts", "code", "status"}, []string{"devices", "code"})
	assert.Equal(t, []string{"audit", "logs", "events", "users", "orders", "carts", "memos", "devices"}, hitNames(search(s, "memo code status")),
		"two common words before one rare one; then the rare one")

	s = searchSchema([]string{"audit", "code"}, []string{"logs", "code"}, []string{"events", "code"}, []string{"notes", "reason"})
	assert.Equal(t, []string{"notes", "audit", "logs", "events"}, hitNames(search(s, "code reason")), "the rarer word first")
}

// TestSearchResultBudget: whatever the query's length, a result keeps
// within maxSearchBytes, the repeated query cut at a character.
func TestSearchResultBudget(t *testing.T) {
	s := searchSchema([]string{"dicom_all"})
	for c := range 400 {
		s.Tables[0].Columns = append(s.Tables[0].Columns, engine.Column{Name: fmt.Sprintf("dicom_attribute_%03d", c), Type: "text"})
	}
	for _, query := range []string{"dicom", strings.Repeat("dicom ", 3000), strings.Repeat("é\"", 6000), strings.Repeat("\x01", 16<<10)} {
		res := searchResult(s, query, search(s, query))
		data, err := json.Marshal(res)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(data), maxSearchBytes, "a query of %d bytes", len(query))
		assert.True(t, utf8.ValidString(res.Query))
		if len(query) > maxEchoedQuery {
			assert.True(t, strings.HasSuffix(res.Query, "…") && len(res.Query) <= maxEchoedQuery+len("…"), "%q", res.Query)
		} else {
			assert.Equal(t, query, res.Query)
		}
	}
}
