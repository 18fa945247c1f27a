package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// The catalog queries of SQLite, through its table-valued pragma
// functions, each over every table at once.
const (
	sqliteUserTables   = `m.name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	sqliteColumnsQuery = `SELECT m.name, m.type = 'view', coalesce(m.sql, ''), p.name, p.type, p."notnull", p.pk
FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
WHERE m.type IN ('table', 'view') AND ` + sqliteUserTables + `
ORDER BY m.name, p.cid`
	sqliteForeignKeysQuery = `SELECT m.name, f.id, f."table", f."from", f."to"
FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f
WHERE m.type = 'table' AND ` + sqliteUserTables + `
ORDER BY m.name, f.id, f.seq`
	sqliteIndexesQuery = `SELECT m.name, il.name, il."unique", il.origin, ii.name
FROM sqlite_master AS m JOIN pragma_index_list(m.name) AS il JOIN pragma_index_info(il.name) AS ii
WHERE m.type = 'table' AND ` + sqliteUserTables + `
ORDER BY m.name, il.name, ii.seqno`
)

// Bounds of counting rows where sqlite_stat1 has no estimate: counting
// stops at sqliteCountLimit rows, and only the first sqliteCountTables
// tables are counted, in one statement.
const (
	sqliteCountLimit  = 100_000
	sqliteCountTables = 200
)

func (s *sqliteDB) Schema(ctx context.Context) (*engine.Schema, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ts := engine.NewTableSet[string]()
	creates := map[*engine.Table]string{}
	err = engine.QueryEach(ctx, c, sqliteColumnsQuery, func(rows *sql.Rows) error {
		var (
			table, create string
			view, notNull bool
			pk            int
			col           engine.Column
		)
		if err := rows.Scan(&table, &view, &create, &col.Name, &col.Type, &notNull, &pk); err != nil {
			return err
		}
		t := ts.Table(strings.ToLower(table), func() *engine.Table { return &engine.Table{Name: table, View: view, Rows: -1} })
		creates[t] = create
		col.Nullable = !notNull
		col.Type = strings.ToLower(col.Type) // as declared, often in capitals
		t.Columns = append(t.Columns, col)
		if pk > 0 {
			// pk is the column's position in the key, from 1.
			for len(t.PrimaryKey) < pk {
				t.PrimaryKey = append(t.PrimaryKey, "")
			}
			t.PrimaryKey[pk-1] = col.Name
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the columns: %w", err)
	}
	if err := engine.QueryEach(ctx, c, sqliteForeignKeysQuery, func(rows *sql.Rows) error { return sqliteForeignKey(ts, rows) }); err != nil {
		return nil, fmt.Errorf("read the foreign keys: %w", err)
	}
	if err := engine.QueryEach(ctx, c, sqliteIndexesQuery, func(rows *sql.Rows) error { return sqliteIndex(ts, rows) }); err != nil {
		return nil, fmt.Errorf("read the indexes: %w", err)
	}
	for _, t := range ts.List {
		sqliteFinish(ts, t, creates[t])
	}
	if err := sqliteRowCounts(ctx, c, ts); err != nil {
		return nil, fmt.Errorf("estimate the row counts: %w", err)
	}
	return ts.Schema(sqltext.DialectSQLite), nil
}

func sqliteForeignKey(ts *engine.TableSet[string], rows *sql.Rows) error {
	var (
		table, refTable, from string
		id                    int
		to                    sql.NullString // NULL: the target's primary key
	)
	if err := rows.Scan(&table, &id, &refTable, &from, &to); err != nil {
		return err
	}
	t, ok := ts.ByKey[strings.ToLower(table)]
	if !ok {
		return nil
	}
	key := strconv.Itoa(id)
	n := len(t.ForeignKeys)
	if n == 0 || ts.LastFK[t] != key {
		t.ForeignKeys = append(t.ForeignKeys, engine.ForeignKey{RefTable: refTable})
		ts.LastFK[t] = key
		n++
	}
	fk := &t.ForeignKeys[n-1]
	fk.Columns = append(fk.Columns, from)
	fk.RefColumns = append(fk.RefColumns, to.String)
	return nil
}

func sqliteIndex(ts *engine.TableSet[string], rows *sql.Rows) error {
	var (
		table, name, origin string
		unique              bool
		column              sql.NullString // NULL for an expression
	)
	if err := rows.Scan(&table, &name, &unique, &origin, &column); err != nil {
		return err
	}
	t, ok := ts.ByKey[strings.ToLower(table)]
	if !ok {
		return nil
	}
	n := len(t.Indexes)
	if n == 0 || t.Indexes[n-1].Name != name {
		t.Indexes = append(t.Indexes, engine.Index{Name: name, Unique: unique})
		n++
	}
	t.Indexes[n-1].Columns = append(t.Indexes[n-1].Columns, column.String)
	return nil
}

// sqliteFinish completes a table once the catalog is read: the foreign
// keys' targets by their catalog names, the keys that SQLite keeps as
// indexes, and the allowed values from the CHECK constraints of its
// CREATE TABLE statement.
func sqliteFinish(ts *engine.TableSet[string], t *engine.Table, create string) {
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		target, ok := ts.ByKey[strings.ToLower(fk.RefTable)]
		if !ok {
			continue
		}
		fk.RefTable = target.Name
		if slices.Contains(fk.RefColumns, "") && len(target.PrimaryKey) == len(fk.RefColumns) {
			fk.RefColumns = slices.Clone(target.PrimaryKey)
		}
	}
	for _, ix := range t.Indexes {
		if ix.Unique && !slices.Contains(ix.Columns, "") {
			t.AddUnique(ix.Columns)
		}
	}
	for _, expr := range checkExpressions(create) {
		if name, values, ok := engine.CheckValues(expr); ok {
			if col := t.ColumnFold(name); col != nil && col.Values == nil {
				col.Values = values
			}
		}
	}
}

// checkExpressions returns the expressions of the CHECK constraints of a
// CREATE TABLE statement: what the parentheses after each CHECK hold.
func checkExpressions(create string) []string {
	var exprs []string
	for i := 0; i < len(create); i++ {
		switch ch := create[i]; ch {
		case '\'', '"', '`':
			if end := strings.IndexByte(create[i+1:], ch); end >= 0 {
				i += end + 1
			}
		case '[':
			if end := strings.IndexByte(create[i+1:], ']'); end >= 0 {
				i += end + 1
			}
		case 'c', 'C':
			if i > 0 && isWordByte(create[i-1]) || len(create)-i < 5 || !strings.EqualFold(create[i:i+5], "CHECK") ||
				i+5 < len(create) && isWordByte(create[i+5]) {
				continue
			}
			j := i + 5
			for j < len(create) && (create[j] == ' ' || create[j] == '\t' || create[j] == '\n' || create[j] == '\r') {
				j++
			}
			if j < len(create) && create[j] == '(' {
				if end := matchParen(create, j); end > j {
					exprs = append(exprs, create[j+1:end])
					i = end
				}
			}
		}
	}
	return exprs
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// matchParen returns the index of the parenthesis that closes the one at
// open, skipping quoted text, or -1.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\'', '"', '`':
			end := strings.IndexByte(s[i+1:], ch)
			if end < 0 {
				return -1
			}
			i += end + 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// sqliteRowCounts sets the row estimates: from sqlite_stat1 where ANALYZE
// left them, else a count that stops at sqliteCountLimit, for the first
// sqliteCountTables tables, in one statement.
func sqliteRowCounts(ctx context.Context, c *sql.Conn, ts *engine.TableSet[string]) error {
	var hasStats int
	if err := c.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`).Scan(&hasStats); err != nil {
		return err
	}
	if hasStats > 0 {
		err := engine.QueryEach(ctx, c, `SELECT tbl, stat FROM sqlite_stat1`, func(rows *sql.Rows) error {
			var table string
			var stat sql.NullString
			if err := rows.Scan(&table, &stat); err != nil {
				return err
			}
			first, _, _ := strings.Cut(stat.String, " ")
			n, err := strconv.ParseInt(first, 10, 64)
			if t, ok := ts.ByKey[strings.ToLower(table)]; ok && err == nil && n > t.Rows {
				t.Rows = n
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	var uncounted []*engine.Table
	for _, t := range ts.List {
		if !t.View && t.Rows < 0 && len(uncounted) < sqliteCountTables {
			uncounted = append(uncounted, t)
		}
	}
	if len(uncounted) == 0 {
		return nil
	}
	var q strings.Builder
	for i, t := range uncounted {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT %d, (SELECT count(*) FROM (SELECT 1 FROM "%s" LIMIT %d))`,
			i, strings.ReplaceAll(t.Name, `"`, `""`), sqliteCountLimit+1)
	}
	// A table that cannot be counted (a virtual table whose module is
	// missing) leaves the estimates unknown rather than the schema unread.
	_ = engine.QueryEach(ctx, c, q.String(), func(rows *sql.Rows) error {
		var i int
		var n int64
		if err := rows.Scan(&i, &n); err != nil {
			return err
		}
		t := uncounted[i]
		t.Rows = n
		if n > sqliteCountLimit {
			t.Rows, t.RowsAtLeast = sqliteCountLimit, true
		}
		return nil
	})
	return nil
}
