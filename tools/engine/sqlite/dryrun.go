package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// DryRun on SQLite: a table without triggers. The rollback releases the
// write lock the statement took on the file.
func (s *sqliteDB) DryRun(ctx context.Context, query string, args []any, table string, reaching []string) (int64, []engine.TableChange, string, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return 0, nil, "", err
	}
	defer engine.ReleaseSQLConn(c, false)
	parts := engine.NameParts(table)
	name := parts[len(parts)-1]
	master := "sqlite_master"
	if len(parts) > 1 {
		master = `"` + strings.ReplaceAll(parts[len(parts)-2], `"`, `""`) + `".sqlite_master`
	}
	var kind sql.NullString
	var triggers int
	err = c.QueryRowContext(ctx, `SELECT
		(SELECT type FROM `+master+` WHERE lower(name) = lower(?1) AND type IN ('table', 'view')),
		(SELECT count(*) FROM `+master+` WHERE type = 'trigger' AND lower(tbl_name) = lower(?1))`, name).Scan(&kind, &triggers)
	switch {
	case err != nil:
		return 0, nil, "", err
	case !kind.Valid:
		return 0, nil, "", fmt.Errorf("there is no table %s", table)
	case kind.String != "table":
		return 0, nil, engine.NotATable(table), nil
	case triggers > 0:
		return 0, nil, engine.HasTriggers(table), nil
	}
	if err := setAuthorizer(c, nil); err != nil {
		return 0, nil, "", err
	}
	if _, err := c.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		return 0, nil, "", fmt.Errorf("set the access mode: %w", err)
	}
	// The target is counted too: OR REPLACE, in the statement or in the
	// table's own conflict clauses, removes rows of it that the statement's
	// count leaves out.
	target := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	if len(parts) > 1 {
		target = `"` + strings.ReplaceAll(parts[len(parts)-2], `"`, `""`) + `".` + target
	}
	n, cascade, err := engine.CountWithTarget(ctx, c, query, args, engine.StatementKind(query, sqltext.DialectSQLite), target, reaching)
	return n, cascade, "", err
}
