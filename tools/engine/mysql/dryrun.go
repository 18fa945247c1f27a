package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// DryRun on MySQL and MariaDB: only an InnoDB table without triggers.
func (m *mysqlDB) DryRun(ctx context.Context, query string, args []any, table string, reaching []string) (int64, []engine.TableChange, string, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return 0, nil, "", err
	}
	defer engine.ReleaseSQLConn(c, false)
	parts := engine.NameParts(table)
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	var storage sql.NullString
	var triggers int
	err = c.QueryRowContext(ctx, `SELECT t.ENGINE,
		(SELECT count(*) FROM information_schema.TRIGGERS g WHERE g.EVENT_OBJECT_SCHEMA = t.TABLE_SCHEMA AND g.EVENT_OBJECT_TABLE = t.TABLE_NAME)
		FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND t.TABLE_NAME = ?`,
		schema, name).Scan(&storage, &triggers)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil, "", fmt.Errorf("there is no table %s", table)
	case err != nil:
		return 0, nil, "", err
	case !storage.Valid:
		return 0, nil, engine.NotATable(table), nil
	case !strings.EqualFold(storage.String, "InnoDB"):
		return 0, nil, fmt.Sprintf("the table %s is %s, an engine without transactions, so a rollback could not undo it", table, storage.String), nil
	case triggers > 0:
		return 0, nil, engine.HasTriggers(table), nil
	}
	if err := m.prepareSession(ctx, c, true); err != nil {
		return 0, nil, "", err
	}
	if skip, err := mysqlUncounted(ctx, c, query, table, reaching); skip != "" || err != nil {
		return 0, nil, skip, err
	}
	// The target is counted too: a foreign key of the table to itself
	// (tree.parent_id ON DELETE CASCADE) and REPLACE remove rows of it that
	// the statement's own count leaves out.
	n, cascade, err := engine.CountWithTarget(ctx, c, query, args, engine.StatementKind(query, sqltext.DialectMySQL), table, reaching)
	return n, cascade, "", err
}

// mysqlUncounted says why a dry run cannot count what the statement does
// through foreign keys, if it cannot: MySQL and MariaDB keep no per-table
// counts, so a dry run counts the rows each table lost or gained, and a
// cascade that changes rows (ON UPDATE CASCADE, SET NULL, SET DEFAULT)
// changes none of those counts.
func mysqlUncounted(ctx context.Context, c *sql.Conn, query, table string, reaching []string) (string, error) {
	// The kind as the classifier reads it: a comment before the
	// statement (/* x */ UPDATE) must not hide it, as it did.
	kind := engine.StatementKind(query, sqltext.DialectMySQL)
	if kind != "UPDATE" && kind != "DELETE" {
		return "", nil
	}
	names := []any{}
	marks := []string{}
	for _, t := range append([]string{table}, reaching...) {
		parts := engine.NameParts(t)
		names = append(names, parts[len(parts)-1])
		marks = append(marks, "?")
	}
	rule := "DELETE_RULE IN ('SET NULL', 'SET DEFAULT')"
	if kind == "UPDATE" {
		rule = "UPDATE_RULE IN ('CASCADE', 'SET NULL', 'SET DEFAULT')"
	}
	var n int
	err := c.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IN (`+strings.Join(marks, ", ")+`) AND `+rule, names...).Scan(&n)
	if err != nil {
		return "", fmt.Errorf("read the foreign keys: %w", err)
	}
	if n > 0 {
		return "foreign keys that lead to " + table + " change rows of their tables in cascade, which a trial run here cannot count", nil
	}
	// A table of another database whose foreign key leads here is not
	// among those counted: its rows may go in cascade unseen.
	err = c.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE UNIQUE_CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_SCHEMA <> DATABASE() AND REFERENCED_TABLE_NAME IN (`+strings.Join(marks, ", ")+`)`, names...).Scan(&n)
	if err != nil {
		return "", fmt.Errorf("read the foreign keys: %w", err)
	}
	if n > 0 {
		return "foreign keys of tables in other databases lead to " + table + ", whose rows a trial run here cannot count", nil
	}
	return "", nil
}
