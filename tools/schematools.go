package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
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
	return plural(len(l.Tables), "table") + ": " + engine.CutText(strings.Join(l.Tables, ", "), 120)
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
		res.NotFound = append(res.NotFound, schema.NoTable(name))
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
		set := schema.FindSet(name)
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
func (s *Set) findTables(ctx context.Context, names []string) (*engine.Schema, []*engine.Table, []string, error) {
	schema, err := s.db.Schema(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	tables, missing := schema.LookupAll(names)
	if len(missing) > 0 {
		s.db.RefreshSchema()
		if schema, err = s.db.Schema(ctx); err != nil {
			return nil, nil, nil, err
		}
		tables, missing = schema.LookupAll(names)
	}
	return schema, tables, missing, nil
}

// tableSummary is a table in one line for the editor: "orders: 4 columns,
// PK id, 1 foreign key, ~12k rows".
func tableSummary(s *engine.Schema, t *engine.Table) string {
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
	if rows := engine.FormatRows(t.Rows, t.RowsAtLeast); rows != "" && !t.View {
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
	hits := search(schema, query)
	res := searchResult(schema, query, hits)
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
		text += " (" + engine.CutText(strings.Join(names, ", "), 120) + ")"
	}
	return text
}
