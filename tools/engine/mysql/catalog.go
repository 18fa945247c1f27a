package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// The catalog queries of MySQL and MariaDB, on the connection's database.
const (
	mysqlTablesQuery = `SELECT TABLE_NAME, TABLE_TYPE = 'VIEW', TABLE_ROWS, TABLE_COMMENT
FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`
	mysqlColumnsQuery = `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_COMMENT
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`
	mysqlIndexesQuery = `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE = 0, COLUMN_NAME
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`
	mysqlForeignKeysQuery = `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME,
	REFERENCED_TABLE_SCHEMA = DATABASE(), REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL
ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`
	// MariaDB names a CHECK constraint's table in CHECK_CONSTRAINTS;
	// MySQL only in TABLE_CONSTRAINTS.
	mariadbChecksQuery = `SELECT TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = DATABASE()`
	mysqlChecksQuery = `SELECT tc.TABLE_NAME, cc.CHECK_CLAUSE
FROM information_schema.TABLE_CONSTRAINTS AS tc
JOIN information_schema.CHECK_CONSTRAINTS AS cc
	ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
WHERE tc.TABLE_SCHEMA = DATABASE() AND tc.CONSTRAINT_TYPE = 'CHECK'`
)

func (m *mysqlDB) Schema(ctx context.Context) (*engine.Schema, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	f, err := m.getFlavor(ctx, c)
	if err != nil {
		return nil, err
	}
	ts := engine.NewTableSet[string]()
	steps := []struct {
		what  string
		query string
		read  func(*engine.TableSet[string], *sql.Rows) error
	}{
		{"tables", mysqlTablesQuery, mysqlTables},
		{"columns", mysqlColumnsQuery, mysqlColumns},
		{"indexes", mysqlIndexesQuery, mysqlIndexes},
		{"foreign keys", mysqlForeignKeysQuery, mysqlForeignKeys},
	}
	for _, step := range steps {
		if err := engine.QueryEach(ctx, c, step.query, func(rows *sql.Rows) error { return step.read(ts, rows) }); err != nil {
			return nil, fmt.Errorf("read the %s: %w", step.what, err)
		}
	}
	checks := mysqlChecksQuery
	if f.MariaDB {
		checks = mariadbChecksQuery
	}
	// Servers before MySQL 8.0.16 and MariaDB 10.2 have no CHECK
	// constraints to read: the allowed values then come from ENUM only.
	mysqlKeys(ts)
	_ = engine.QueryEach(ctx, c, checks, func(rows *sql.Rows) error { return mysqlChecks(ts, rows) })
	return ts.Schema(sqltext.DialectMySQL), nil
}

func mysqlTables(ts *engine.TableSet[string], rows *sql.Rows) error {
	var (
		name, comment string
		view          bool
		estimate      sql.NullInt64
	)
	if err := rows.Scan(&name, &view, &estimate, &comment); err != nil {
		return err
	}
	n := int64(-1)
	if estimate.Valid && !view {
		n = estimate.Int64
	}
	if view {
		comment = "" // MySQL's comment of every view is "VIEW"
	}
	ts.Table(name, func() *engine.Table { return &engine.Table{Name: name, View: view, Rows: n, Comment: comment} })
	return nil
}

func mysqlColumns(ts *engine.TableSet[string], rows *sql.Rows) error {
	var table string
	var col engine.Column
	if err := rows.Scan(&table, &col.Name, &col.Type, &col.Nullable, &col.Comment); err != nil {
		return err
	}
	col.Values = engine.EnumValues(col.Type)
	if col.Values != nil {
		col.Type = "enum"
	}
	t := ts.Table(table, func() *engine.Table { return &engine.Table{Name: table, Rows: -1} })
	t.Columns = append(t.Columns, col)
	return nil
}

func mysqlIndexes(ts *engine.TableSet[string], rows *sql.Rows) error {
	var (
		table, name string
		unique      bool
		column      sql.NullString // NULL for a functional key part
	)
	if err := rows.Scan(&table, &name, &unique, &column); err != nil {
		return err
	}
	t, ok := ts.ByKey[table]
	if !ok {
		return nil
	}
	n := len(t.Indexes)
	if n == 0 || t.Indexes[n-1].Name != name {
		t.Indexes = append(t.Indexes, engine.Index{Name: name, Unique: unique})
		n++
	}
	ix := &t.Indexes[n-1]
	ix.Columns = append(ix.Columns, column.String)
	return nil
}

// mysqlKeys sets the primary key and the unique keys from the indexes,
// as MySQL and MariaDB keep them.
func mysqlKeys(ts *engine.TableSet[string]) {
	for _, t := range ts.List {
		for _, ix := range t.Indexes {
			switch {
			case ix.Name == "PRIMARY":
				t.PrimaryKey = ix.Columns
			case ix.Unique && !slices.Contains(ix.Columns, ""):
				t.AddUnique(ix.Columns)
			}
		}
	}
}

func mysqlForeignKeys(ts *engine.TableSet[string], rows *sql.Rows) error {
	var (
		table, name, column, refSchema, refTable, refColumn string
		sameSchema                                          bool
	)
	if err := rows.Scan(&table, &name, &column, &sameSchema, &refSchema, &refTable, &refColumn); err != nil {
		return err
	}
	t, ok := ts.ByKey[table]
	if !ok {
		return nil
	}
	if sameSchema {
		refSchema = ""
	}
	// The rows of one key come together, in order.
	n := len(t.ForeignKeys)
	if n == 0 || ts.LastFK[t] != name {
		t.ForeignKeys = append(t.ForeignKeys, engine.ForeignKey{RefSchema: refSchema, RefTable: refTable})
		ts.LastFK[t] = name
		n++
	}
	fk := &t.ForeignKeys[n-1]
	fk.Columns = append(fk.Columns, column)
	fk.RefColumns = append(fk.RefColumns, refColumn)
	return nil
}

func mysqlChecks(ts *engine.TableSet[string], rows *sql.Rows) error {
	var table, clause string
	if err := rows.Scan(&table, &clause); err != nil {
		return err
	}
	t, ok := ts.ByKey[table]
	if !ok {
		return nil
	}
	if name, values, ok := engine.CheckValues(clause); ok {
		if col := t.Column(name); col != nil && col.Values == nil {
			col.Values = values
		}
	}
	return nil
}
