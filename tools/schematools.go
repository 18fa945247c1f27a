package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aiq/aiq-rpc/tools/sqltext"
	"slices"
	"strings"
)

// The schema tools of a Set: describe_table, search_schema and
// profile_column here, explain_sql in explain.go. A table or column that
// does not exist is a result that names the closest matches, never an
// error, so that the model tries again with the right name.

// maxDescribe bounds the tables of one describe_table call, and
// maxSearch the matches of one search_schema call.
const (
	maxDescribe = 20
	maxSearch   = 20
)

// TableList is list_tables' result: the qualified names of the tables.
type TableList struct {
	Tables []string `json:"tables"`
}

// Summary is "3 tables: a, b, c", cut, for the editor.
func (l *TableList) Summary() string {
	if len(l.Tables) == 0 {
		return "no tables"
	}
	return plural(len(l.Tables), "table") + ": " + cutText(strings.Join(l.Tables, ", "), 120)
}

// TableCards is describe_table's result: each table's full card, and a
// sentence for each name that is no table.
type TableCards struct {
	Tables   []string `json:"tables"`
	NotFound []string `json:"not_found,omitempty"`
	summary  string
}

// Summary says what the call found, in one line for the editor.
func (c *TableCards) Summary() string { return c.summary }

// describeTables returns the full cards of the tables the model names in
// table or tables.
func (s *Set) describeTables(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Table  string   `json:"table"`
		Tables []string `json:"tables"`
	}
	if err := decodeArgs(ToolDescribeTable, args, &a); err != nil {
		return nil, err
	}
	names := slices.DeleteFunc(append([]string{a.Table}, a.Tables...), func(n string) bool { return strings.TrimSpace(n) == "" })
	switch {
	case len(names) == 0:
		return nil, errors.New("describe_table needs the table argument (a table's name) or tables (a list of up to 20 names)")
	case len(names) > maxDescribe:
		return nil, fmt.Errorf("describe_table takes up to %d tables at a time, and %d were asked; ask for fewer", maxDescribe, len(names))
	}
	res := &TableCards{Tables: []string{}}
	var summaries []string
	names, err := s.describeSets(ctx, names, res, &summaries)
	if err != nil || len(names) == 0 {
		res.summary = strings.Join(summaries, "; ")
		return res, err
	}
	schema, tables, missing, err := s.findTables(ctx, names)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		res.Tables = append(res.Tables, schema.Card(t))
		summaries = append(summaries, tableSummary(schema, t))
	}
	for _, name := range missing {
		res.NotFound = append(res.NotFound, schema.noTable(name))
		summaries = append(summaries, "no table "+name)
	}
	res.summary = strings.Join(summaries, "; ")
	return res, nil
}

// describeSets writes the cards of the names that are patterns of shards
// (events_YYYYMMDD) and returns the other names.
func (s *Set) describeSets(ctx context.Context, names []string, res *TableCards, summaries *[]string) ([]string, error) {
	schema, err := s.db.Schema(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, func(name string) bool {
		if _, ok := schema.Lookup(name); ok {
			return false
		}
		set := schema.findSet(name)
		if set != nil {
			res.Tables = append(res.Tables, schema.SetCard(set))
			*summaries = append(*summaries, schema.SetName(set)+": "+plural(len(set.Members), "shard"))
		}
		return set != nil
	}), nil
}

// findTables looks the names up in the cached schema, and when one is
// missing, in the schema read again: the table may be newer than the
// cache.
func (s *Set) findTables(ctx context.Context, names []string) (*Schema, []*Table, []string, error) {
	schema, err := s.db.Schema(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	tables, missing := schema.lookupAll(names)
	if len(missing) > 0 {
		s.db.RefreshSchema()
		if schema, err = s.db.Schema(ctx); err != nil {
			return nil, nil, nil, err
		}
		tables, missing = schema.lookupAll(names)
	}
	return schema, tables, missing, nil
}

// lookupAll finds each name's table, once each.
func (s *Schema) lookupAll(names []string) (found []*Table, missing []string) {
	for _, name := range names {
		t, ok := s.Lookup(name)
		switch {
		case !ok:
			missing = append(missing, name)
		case !slices.Contains(found, t):
			found = append(found, t)
		}
	}
	return found, missing
}

// Lookup finds a table by the name the model gives, bare, qualified or
// quoted in the dialect's way ("Order Details", `select`, "sales"."x").
func (s *Schema) Lookup(name string) (*Table, bool) {
	name = strings.TrimSpace(name)
	if t, ok := s.find(name); ok {
		return t, true
	}
	return s.find(unquoteQualified(name))
}

// find finds a table by its name or its qualified name (schema.name).
// An exact match wins; else the match must be unique regardless of case,
// as unquoted names are case-insensitive in SQL.
func (s *Schema) find(name string) (*Table, bool) {
	for i := range s.Tables {
		if t := &s.Tables[i]; t.Name == name || t.QualifiedName() == name {
			return t, true
		}
	}
	var found *Table
	for i := range s.Tables {
		if t := &s.Tables[i]; strings.EqualFold(t.Name, name) || strings.EqualFold(t.QualifiedName(), name) {
			if found != nil {
				return nil, false
			}
			found = t
		}
	}
	return found, found != nil
}

// unquoteQualified removes the quotes of each part of a name such as
// "sales"."Order Details"; a name without quotes is returned as it is.
func unquoteQualified(name string) string {
	if !strings.ContainsAny(name, "\"`[") {
		return name
	}
	var parts []string
	for rest := name; rest != ""; {
		end := 0
		switch rest[0] {
		case '"', '`':
			q := rest[0]
			for end = 1; end < len(rest); end++ {
				if rest[end] == q {
					if end+1 < len(rest) && rest[end+1] == q {
						end++
						continue
					}
					break
				}
			}
			end = min(end+1, len(rest))
		case '[':
			end = strings.IndexByte(rest, ']') + 1
			if end == 0 {
				end = len(rest)
			}
		default:
			end = strings.IndexByte(rest, '.')
			if end < 0 {
				end = len(rest)
			}
		}
		parts = append(parts, unquoteIdent(rest[:end]))
		rest = strings.TrimPrefix(rest[end:], ".")
	}
	return strings.Join(parts, ".")
}

// noTable says that no table has the name, and names the closest.
func (s *Schema) noTable(name string) string {
	var names []string
	for i := range s.Tables {
		names = append(names, s.Tables[i].QualifiedName())
	}
	return "no table `" + name + "`" + didYouMean(name, names, "; call search_schema to find tables by name, column or comment")
}

// noColumn says that the table has no column of that name, and names the
// closest.
func (s *Schema) noColumn(t *Table, name string) string {
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	return "no column `" + name + "` in " + s.TableName(t) + didYouMean(name, names, "; its columns are "+strings.Join(names, ", "))
}

// didYouMean returns "; did you mean `orders`?" with up to three names
// close to name, or otherwise when none is close.
func didYouMean(name string, names []string, otherwise string) string {
	type near struct {
		name string
		d    int
	}
	want := strings.ToLower(unquoteQualified(name))
	var close []near
	for _, n := range names {
		lower := strings.ToLower(n)
		_, bare, _ := strings.Cut(lower, ".")
		d := min(editDistance(want, lower), editDistance(want, bare))
		switch {
		case d <= max(2, len(want)/3):
		case len(want) >= 3 && (strings.Contains(lower, want) || strings.Contains(want, bare) && bare != ""):
			d = 3 + abs(len(lower)-len(want))
		case sqltext.Stem(want) == sqltext.Stem(bare):
			d = 1
		default:
			continue
		}
		close = append(close, near{n, d})
	}
	if len(close) == 0 {
		return otherwise
	}
	slices.SortStableFunc(close, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	var quoted []string
	for _, c := range close[:min(3, len(close))] {
		quoted = append(quoted, "`"+c.name+"`")
	}
	return "; did you mean " + strings.Join(quoted, " or ") + "?"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance between a and b, in bytes,
// given up past 8 (the names are then not close).
func editDistance(a, b string) int {
	if d := abs(len(a) - len(b)); d > 8 {
		return d
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// tableSummary is a table in one line for the editor: "orders: 4 columns,
// PK id, 1 foreign key, ~12k rows".
func tableSummary(s *Schema, t *Table) string {
	parts := []string{plural(len(t.Columns), "column")}
	if t.View {
		parts[0] = "view, " + parts[0]
	}
	if len(t.PrimaryKey) > 0 {
		parts = append(parts, "PK "+strings.Join(t.PrimaryKey, ", "))
	}
	if n := len(t.ForeignKeys); n > 0 {
		parts = append(parts, plural(n, "foreign key"))
	}
	if rows := FormatRows(t.Rows, t.RowsAtLeast); rows != "" && !t.View {
		parts = append(parts, rows)
	}
	return s.TableName(t) + ": " + strings.Join(parts, ", ")
}

// plural writes "1 column" or "4 columns".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// SchemaMatches is search_schema's result: the tables whose names,
// columns or comments match, each with its one-line card and the columns
// that matched.
type SchemaMatches struct {
	Query   string        `json:"query"`
	Matches []SchemaMatch `json:"matches"`
	// More counts the matching tables left out.
	More    int `json:"more,omitempty"`
	summary string
}

// SchemaMatch is one table that matched.
type SchemaMatch struct {
	Table   string   `json:"table"`
	Columns []string `json:"matching_columns,omitempty"`
	Line    string   `json:"card"`
}

// Summary says what the search found, in one line for the editor.
func (m *SchemaMatches) Summary() string { return m.summary }

// searchSchema finds the tables and columns whose names or comments hold
// the query's words (stemmed) or the query itself, regardless of case.
func (s *Set) searchSchema(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		Query string `json:"query"`
	}
	if err := decodeArgs(ToolSearchSchema, args, &a); err != nil {
		return nil, err
	}
	query := strings.TrimSpace(a.Query)
	if query == "" {
		return nil, errors.New("search_schema needs the query argument: words to find in table names, column names and comments")
	}
	schema, err := s.db.Schema(ctx)
	if err != nil {
		return nil, err
	}
	hits := schema.search(query)
	res := schema.searchResult(query, hits)
	var names []string
	for _, m := range res.Matches {
		names = append(names, m.Table)
	}
	res.summary = searchSummary(query, len(hits), names)
	return res, nil
}

// searchSummary is a search in one line: `search "lines": 2 tables
// (order_lines, shipments)`.
func searchSummary(query string, found int, names []string) string {
	text := fmt.Sprintf("search %q: %s", query, plural(found, "table"))
	if len(names) > 0 {
		text += " (" + cutText(strings.Join(names, ", "), 120) + ")"
	}
	return text
}
