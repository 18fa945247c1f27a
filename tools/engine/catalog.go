package engine

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// The catalog readers of the engines (the catalog.go of each engine's
// folder) each read the whole schema with a
// few queries, never one per table, and build a Schema with what this
// file shares: finding a table by the names the catalog gives, the
// allowed values of a CHECK constraint, and the text the model reads.

// Bounds of what the model reads about one table.
const (
	maxLineComment  = 80  // a comment in a table's line
	maxCardComment  = 300 // a comment in its full card
	maxValuesText   = 120 // the allowed values of a column
	maxValuesInCard = 400
)

// TableSet is the tables an engine's catalog reader builds, found by a
// key the catalog gives: an oid, or a schema and name.
type TableSet[K comparable] struct {
	// List is the tables in the order they were added.
	List []*Table
	// ByKey finds a table by its catalog key.
	ByKey map[K]*Table
	// LastFK names each table's last foreign key, for catalogs that list
	// a key's columns one a row.
	LastFK map[*Table]string
}

// NewTableSet returns an empty TableSet.
func NewTableSet[K comparable]() *TableSet[K] {
	return &TableSet[K]{ByKey: map[K]*Table{}, LastFK: map[*Table]string{}}
}

// Table returns the table of key, adding it the first time.
func (ts *TableSet[K]) Table(key K, make func() *Table) *Table {
	if t, ok := ts.ByKey[key]; ok {
		return t
	}
	t := make()
	ts.List = append(ts.List, t)
	ts.ByKey[key] = t
	return t
}

// Schema returns the tables as a Schema of dialect d, with each column's
// nullability following its primary key.
func (ts *TableSet[K]) Schema(d sqltext.Dialect) *Schema {
	s := &Schema{Tables: make([]Table, 0, len(ts.List)), Dialect: d}
	for _, t := range ts.List {
		for i := range t.Columns {
			if slices.Contains(t.PrimaryKey, t.Columns[i].Name) {
				t.Columns[i].Nullable = false
			}
		}
		s.Tables = append(s.Tables, *t)
	}
	return s
}

// AddUnique records a unique constraint or index, once.
func (t *Table) AddUnique(cols []string) {
	if len(cols) == 0 || slices.Equal(cols, t.PrimaryKey) {
		return
	}
	for _, u := range t.Unique {
		if slices.Equal(u, cols) {
			return
		}
	}
	t.Unique = append(t.Unique, cols)
}

// Column returns the column of that name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// checkInPattern finds "column IN (...)" in a CHECK constraint, the column
// bare or quoted in any dialect's way, possibly cast.
var checkInPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^\(*\s*("(?:[^"]|"")+"|` + "`(?:[^`]|``)+`" + `|\[[^\]]+\]|[\p{L}_][\p{L}\p{N}_$]*)\s*\)?(?:::[a-z ]+)?\s+IN\s*\((.*)\)\s*\)*$`)
})

// checkAnyPattern finds PostgreSQL's form of the same,
// "(column = ANY (ARRAY['a'::text, 'b'::text]))".
var checkAnyPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^\(*\s*("(?:[^"]|"")+"|[\p{L}_][\p{L}\p{N}_$]*)\s*\)?(?:::[a-z ]+)?\s*=\s*ANY\s*\(+\s*ARRAY\s*\[(.*)\]`)
})

// literalPattern finds a quoted string literal.
var literalPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'((?:[^']|'')*)'`) })

// ColumnFold returns the column of that name regardless of case, as
// SQLite finds it, or nil.
func (t *Table) ColumnFold(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// CheckValues reads a CHECK constraint's expression (without the CHECK
// keyword, or with it) of the form "column IN ('a', 'b')" and returns the
// column and the values. Anything else, an OR or a value that is not a
// string literal among them, is not a list of allowed values.
func CheckValues(expr string) (column string, values []string, ok bool) {
	expr = strings.TrimSpace(expr)
	if rest, found := cutPrefixFold(expr, "CHECK"); found {
		expr = strings.TrimSpace(rest)
	}
	if containsWordFold(expr, "OR") || containsWordFold(expr, "AND") || containsWordFold(expr, "NOT") {
		return "", nil, false
	}
	m := checkInPattern().FindStringSubmatch(expr)
	if m == nil {
		m = checkAnyPattern().FindStringSubmatch(expr)
	}
	if m == nil {
		return "", nil, false
	}
	for _, lit := range literalPattern().FindAllStringSubmatch(m[2], -1) {
		values = append(values, strings.ReplaceAll(lit[1], "''", "'"))
	}
	// Every item must be a literal: compare how many there are.
	items := strings.Count(literalPattern().ReplaceAllString(m[2], "x"), ",") + 1
	if len(values) == 0 || items != len(values) {
		return "", nil, false
	}
	return UnquoteIdent(m[1]), values, true
}

// cutPrefixFold is strings.CutPrefix regardless of case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// containsWordFold reports whether word appears in s, outside string
// literals, as a word of its own, regardless of case.
func containsWordFold(s, word string) bool {
	s = literalPattern().ReplaceAllString(s, "''")
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if strings.EqualFold(f, word) {
			return true
		}
	}
	return false
}

// UnquoteIdent removes the quotes of an identifier quoted in any dialect's
// way.
func UnquoteIdent(s string) string {
	if len(s) >= 2 {
		switch {
		case s[0] == '"' && s[len(s)-1] == '"':
			return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
		case s[0] == '`' && s[len(s)-1] == '`':
			return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
		case s[0] == '[' && s[len(s)-1] == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

// EnumValues returns the values of a MySQL column type "enum('a','b')".
func EnumValues(columnType string) []string {
	rest, ok := cutPrefixFold(columnType, "enum(")
	if !ok {
		return nil
	}
	var values []string
	for _, lit := range literalPattern().FindAllStringSubmatch(rest, -1) {
		values = append(values, strings.ReplaceAll(lit[1], "''", "'"))
	}
	return values
}

// Ident returns name as SQL must write it in the schema's dialect: bare
// when it is a plain identifier, else quoted (double quotes, backticks on
// MySQL).
func (s *Schema) Ident(name string) string {
	if plainIdent(name, s.Dialect) {
		return name
	}
	if s.Dialect == sqltext.DialectMySQL {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// plainIdent reports whether name needs no quotes: ASCII letters, digits
// and underscores, not a keyword, and on PostgreSQL in lower case, as it
// folds unquoted names.
func plainIdent(name string, d sqltext.Dialect) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_' || r >= 'a' && r <= 'z':
		case r >= 'A' && r <= 'Z':
			if d == sqltext.DialectPostgres {
				return false
			}
		case r >= '0' && r <= '9' || r == '$':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return !sqltext.IsReserved(name)
}

// TableName returns the table's name as SQL writes it: quoted where
// needed, after its schema when there is one.
func (s *Schema) TableName(t *Table) string {
	return s.qualified(t.Schema, t.Name)
}

func (s *Schema) qualified(schema, name string) string {
	if schema == "" {
		return s.Ident(name)
	}
	return s.Ident(schema) + "." + s.Ident(name)
}

// identList writes names as "(a, b)".
func (s *Schema) identList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		if n == "" {
			n = "(expression)"
		} else {
			n = s.Ident(n)
		}
		quoted[i] = n
	}
	return "(" + strings.Join(quoted, ", ") + ")"
}

// shortTypes are the catalogs' long type names, in the form SQL also
// accepts and the model reads faster.
var shortTypes = strings.NewReplacer(
	"character varying", "varchar",
	"timestamp without time zone", "timestamp",
	"timestamp with time zone", "timestamptz",
	"time without time zone", "time",
	"time with time zone", "timetz",
	"double precision", "float8",
	"integer", "int",
	"character", "char",
	"boolean", "bool",
)

// mysqlIntWidth is the display width of MySQL's integer types, "int(11)",
// which says nothing about the values.
var mysqlIntWidth = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^((?:tiny|small|medium|big)?int)\(\d+\)`) })

// shortType returns a column type as the card shows it.
func shortType(t string) string {
	t = mysqlIntWidth().ReplaceAllString(shortTypes.Replace(t), "$1")
	if t == "" {
		return "any"
	}
	return t
}

// FormatRows writes a row estimate as "~12k rows", or "" when unknown.
func FormatRows(n int64, atLeast bool) string {
	if n < 0 {
		return ""
	}
	var num string
	switch {
	case n < 1000:
		num = strconv.FormatInt(n, 10)
	case n < 1_000_000:
		num = trimZero(float64(n)/1e3) + "k"
	case n < 1_000_000_000:
		num = trimZero(float64(n)/1e6) + "M"
	default:
		num = trimZero(float64(n)/1e9) + "G"
	}
	unit := " rows"
	if n == 1 {
		unit = " row"
	}
	if atLeast {
		return num + "+" + unit
	}
	return "~" + num + unit
}

// trimZero writes f with one decimal below 10 ("1.2"), none above.
func trimZero(f float64) string {
	if f >= 10 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// CutText shortens s to at most n bytes, on a rune boundary, with an
// ellipsis, and puts it on one line.
func CutText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// valuesText writes allowed values as "open,paid,shipped", quoting those
// that are not plain words, within max bytes.
func valuesText(values []string, max int) string {
	var b strings.Builder
	for i, v := range values {
		piece := v
		if !plainValue(v) {
			piece = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		if i > 0 {
			piece = "," + piece
		}
		if b.Len()+len(piece) > max {
			b.WriteString(",… (" + strconv.Itoa(len(values)) + " values)")
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}

func plainValue(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// singleFK returns the foreign key made of the column alone, or nil.
func (t *Table) singleFK(column string) *ForeignKey {
	for i, fk := range t.ForeignKeys {
		if len(fk.Columns) == 1 && fk.Columns[0] == column {
			return &t.ForeignKeys[i]
		}
	}
	return nil
}

// uniqueAlone reports whether the column alone is unique.
func (t *Table) uniqueAlone(column string) bool {
	for _, u := range t.Unique {
		if len(u) == 1 && u[0] == column {
			return true
		}
	}
	return false
}

// leadsIndex reports whether an index starts with the column.
func (t *Table) leadsIndex(column string) bool {
	for _, ix := range t.Indexes {
		if len(ix.Columns) > 0 && ix.Columns[0] == column {
			return true
		}
	}
	return false
}

// Line returns the table's one-line card, as the system prompt and
// search_schema show it:
//
//	orders(id int PK, customer_id int NOT NULL -> customers.id, status text in {open,paid}) ~12k rows -- "one row per checkout"
func (s *Schema) Line(t *Table) string {
	var b strings.Builder
	if t.View {
		b.WriteString("view ")
	}
	b.WriteString(s.TableName(t))
	b.WriteByte('(')
	for i := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		s.writeColumn(&b, t, &t.Columns[i], maxLineComment, maxValuesText)
	}
	if len(t.PrimaryKey) > 1 {
		b.WriteString(", PK " + s.identList(t.PrimaryKey))
	}
	for _, u := range t.Unique {
		if len(u) > 1 {
			b.WriteString(", UNIQUE " + s.identList(u))
		}
	}
	for _, fk := range t.ForeignKeys {
		if len(fk.Columns) > 1 {
			b.WriteString(", " + s.identList(fk.Columns) + " -> " + s.fkTarget(fk))
		}
	}
	b.WriteByte(')')
	if rows := FormatRows(t.Rows, t.RowsAtLeast); rows != "" && !t.View {
		b.WriteString(" " + rows)
	}
	if t.Comment != "" {
		b.WriteString(` -- "` + CutText(t.Comment, maxLineComment) + `"`)
	}
	return b.String()
}

// fkTarget writes a foreign key's target as "t(a, b)".
func (s *Schema) fkTarget(fk ForeignKey) string {
	return s.qualifiedRef(fk) + s.identList(fk.RefColumns)
}

func (s *Schema) qualifiedRef(fk ForeignKey) string {
	return s.qualified(fk.RefSchema, fk.RefTable)
}

// writeColumn writes "name type PK", "name type NOT NULL -> t.id" and the
// like.
func (s *Schema) writeColumn(b *strings.Builder, t *Table, c *Column, maxComment, maxValues int) {
	b.WriteString(s.Ident(c.Name))
	b.WriteByte(' ')
	b.WriteString(shortType(c.Type))
	keyed := false
	if len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == c.Name {
		b.WriteString(" PK")
		keyed = true
	} else {
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		if t.uniqueAlone(c.Name) {
			b.WriteString(" UNIQUE")
			keyed = true
		}
	}
	if fk := t.singleFK(c.Name); fk != nil {
		b.WriteString(" -> " + s.qualifiedRef(*fk) + "." + s.Ident(fk.RefColumns[0]))
	} else if !keyed && t.leadsIndex(c.Name) {
		b.WriteString(" indexed")
	}
	if len(c.Values) > 0 {
		b.WriteString(" in {" + valuesText(c.Values, maxValues) + "}")
	}
	if c.Comment != "" {
		b.WriteString(` "` + CutText(c.Comment, maxComment) + `"`)
	}
}

// Card returns the table's full card, for describe_table: the columns one
// a line, the keys, the foreign keys both ways, the indexes, the comments
// and the row estimate.
func (s *Schema) Card(t *Table) string {
	var b strings.Builder
	if t.View {
		b.WriteString("view ")
	} else {
		b.WriteString("table ")
	}
	b.WriteString(s.TableName(t))
	if rows := FormatRows(t.Rows, t.RowsAtLeast); rows != "" && !t.View {
		b.WriteString(" " + rows)
	}
	if t.Comment != "" {
		b.WriteString(` -- "` + CutText(t.Comment, maxCardComment) + `"`)
	}
	b.WriteString("\ncolumns:\n")
	for i := range t.Columns {
		b.WriteString("  ")
		s.writeColumn(&b, t, &t.Columns[i], maxCardComment, maxValuesInCard)
		b.WriteByte('\n')
	}
	if len(t.PrimaryKey) > 0 {
		b.WriteString("primary key: " + s.identList(t.PrimaryKey) + "\n")
	}
	for _, u := range t.Unique {
		b.WriteString("unique: " + s.identList(u) + "\n")
	}
	for _, fk := range t.ForeignKeys {
		b.WriteString("foreign key: " + s.identList(fk.Columns) + " -> " + s.fkTarget(fk) + "\n")
	}
	for _, ref := range s.referencedBy(t) {
		b.WriteString("referenced by: " + ref + "\n")
	}
	for _, ix := range t.Indexes {
		b.WriteString("index " + s.Ident(ix.Name))
		if ix.Unique {
			b.WriteString(" UNIQUE")
		}
		b.WriteString(" " + s.identList(ix.Columns) + "\n")
	}
	return b.String()
}

// References reports whether fk points at t.
func (fk ForeignKey) References(t *Table) bool {
	return fk.RefTable == t.Name && fk.RefSchema == t.Schema
}

// referencedBy lists the foreign keys of other tables (and of t itself)
// that point at t, as "orders(customer_id) -> (id)".
func (s *Schema) referencedBy(t *Table) []string {
	var refs []string
	for i := range s.Tables {
		other := &s.Tables[i]
		for _, fk := range other.ForeignKeys {
			if fk.References(t) {
				refs = append(refs, s.TableName(other)+s.identList(fk.Columns)+" -> "+s.identList(fk.RefColumns))
			}
		}
	}
	return refs
}

// RefTableName returns the qualified name of a foreign key's target, as
// SQL writes it.
func (s *Schema) RefTableName(fk ForeignKey) string { return s.qualifiedRef(fk) }
