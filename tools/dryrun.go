package tools

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The outcomes of a dry run, for ConfirmRequest.DryRun.
const (
	DryRunOK      = "ok"      // counted: AffectedRows holds the count
	DryRunFailed  = "failed"  // it ran and failed, or ran out of time: DryRunReason says how
	DryRunSkipped = "skipped" // not run: DryRunReason says why
)

// DryRun is what running a write in a transaction that is always rolled
// back found out, before the user is asked.
type DryRun struct {
	Status string
	// Rows is the count of rows the statement changes itself (rows that
	// foreign-key cascades change in other tables are not counted).
	Rows   int64
	Reason string
}

// dryRunner is an engine that can run a data change and roll it back.
type dryRunner interface {
	// dryRun runs sql with args bound, a plain change of table (as
	// written in it), in a transaction it always rolls back, and returns
	// the rows it changed. skip says why it did not run it, when it did
	// not.
	dryRun(ctx context.Context, sql string, args []any, table string) (rows int64, skip string, err error)
}

// DryRun counts the rows a write would change without changing them, for
// INSERT, UPDATE and DELETE: in a transaction that is always rolled back,
// under the statement timeout. It skips a statement whose effects a
// rollback may not undo: one that reaches outside the database or calls a
// function with effects of its own, one on a table with triggers, or one
// on a table of an engine without transactions (MyISAM). What a rollback
// never undoes is documented in the README: a sequence's nextval (an
// INSERT that takes a serial id) stays taken.
func (db *DB) DryRun(ctx context.Context, query string) DryRun {
	p, why := plainChange(query, db.dialect)
	if why != "" {
		return DryRun{Status: DryRunSkipped, Reason: why}
	}
	kind, _, table, _, ok := p.target()
	if !ok || kind != "INSERT" && kind != "UPDATE" && kind != "DELETE" {
		return DryRun{Status: DryRunSkipped, Reason: "only an INSERT, UPDATE or DELETE of one table is counted beforehand"}
	}
	runner, ok := db.eng.(dryRunner)
	if !ok {
		return DryRun{Status: DryRunSkipped, Reason: "this engine cannot count the rows beforehand"}
	}
	runCtx, cancel := context.WithTimeout(ctx, db.opts.StatementTimeout)
	defer cancel()
	// A statement with masked tokens runs with their values bound, as
	// it will when confirmed (withBound).
	bound, args := boundFor(ctx, query)
	rows, skip, err := runner.dryRun(runCtx, bound, args, table)
	switch {
	case skip != "":
		return DryRun{Status: DryRunSkipped, Reason: skip}
	case err == nil:
		return DryRun{Status: DryRunOK, Rows: rows}
	case ctx.Err() != nil:
		return DryRun{Status: DryRunFailed, Reason: "cancelled"}
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) || db.eng.refusal(err) == refusedTimeout:
		return DryRun{Status: DryRunFailed, Reason: fmt.Sprintf("it took longer than the statement timeout (%s)", db.opts.StatementTimeout)}
	}
	return DryRun{Status: DryRunFailed, Reason: db.redact.clean(err.Error())}
}

// nameParts splits a table name as written (schema.table, quoted or not)
// into its parts without their quotes.
func nameParts(name string) []string {
	var parts []string
	var b strings.Builder
	var quote byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case quote != 0 && c == quote:
			if i+1 < len(name) && name[i+1] == quote && quote != ']' {
				b.WriteByte(c)
				i++
				continue
			}
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == '.':
			parts = append(parts, b.String())
			b.Reset()
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			b.WriteByte(c)
		}
	}
	return append(parts, b.String())
}

// dryRun on PostgreSQL: a table with triggers or rules (other than the
// internal triggers of foreign keys, whose cascades the rollback undoes)
// is skipped.
func (p *postgres) dryRun(ctx context.Context, query string, args []any, table string) (int64, string, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return 0, "", err
	}
	reuse := false
	defer func() { p.release(c, reuse) }()
	var kind string
	var triggers, rules int
	err = c.QueryRow(ctx, `SELECT c.relkind::text,
		(SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal),
		(SELECT count(*) FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.rulename <> '_RETURN')
		FROM pg_class c WHERE c.oid = to_regclass($1)`, table).Scan(&kind, &triggers, &rules)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, "", fmt.Errorf("there is no table %s", table)
	case err != nil:
		return 0, "", err
	case kind != "r" && kind != "p":
		return 0, notATable(table), nil
	case triggers > 0:
		return 0, hasTriggers(table), nil
	case rules > 0:
		return 0, "the table " + table + " has rules, which may turn the statement into others", nil
	}
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadWrite})
	if err != nil {
		return 0, "", fmt.Errorf("begin the transaction: %w", err)
	}
	defer rollback(tx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", p.timeout)); err != nil {
		return 0, "", fmt.Errorf("set the statement timeout: %w", err)
	}
	tag, err := tx.Exec(ctx, query, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return 0, "", err
	}
	reuse = endRead(ctx, c, tx) // rolled back, the session reset
	return tag.RowsAffected(), "", nil
}

// dryRun on MySQL and MariaDB: only an InnoDB table without triggers.
func (m *mysqlDB) dryRun(ctx context.Context, query string, args []any, table string) (int64, string, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return 0, "", err
	}
	defer releaseSQLConn(c, false)
	parts := nameParts(table)
	schema, name := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	var engine sql.NullString
	var triggers int
	err = c.QueryRowContext(ctx, `SELECT t.ENGINE,
		(SELECT count(*) FROM information_schema.TRIGGERS g WHERE g.EVENT_OBJECT_SCHEMA = t.TABLE_SCHEMA AND g.EVENT_OBJECT_TABLE = t.TABLE_NAME)
		FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND t.TABLE_NAME = ?`,
		schema, name).Scan(&engine, &triggers)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, "", fmt.Errorf("there is no table %s", table)
	case err != nil:
		return 0, "", err
	case !engine.Valid:
		return 0, notATable(table), nil
	case !strings.EqualFold(engine.String, "InnoDB"):
		return 0, fmt.Sprintf("the table %s is %s, an engine without transactions, so a rollback could not undo it", table, engine.String), nil
	case triggers > 0:
		return 0, hasTriggers(table), nil
	}
	if err := m.prepareSession(ctx, c, true); err != nil {
		return 0, "", err
	}
	n, err := countRolledBack(ctx, c, query, args)
	return n, "", err
}

// dryRun on SQLite: a table without triggers. The rollback releases the
// write lock the statement took on the file.
func (s *sqliteDB) dryRun(ctx context.Context, query string, args []any, table string) (int64, string, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return 0, "", err
	}
	defer releaseSQLConn(c, false)
	parts := nameParts(table)
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
		return 0, "", err
	case !kind.Valid:
		return 0, "", fmt.Errorf("there is no table %s", table)
	case kind.String != "table":
		return 0, notATable(table), nil
	case triggers > 0:
		return 0, hasTriggers(table), nil
	}
	if err := setAuthorizer(c, nil); err != nil {
		return 0, "", err
	}
	if _, err := c.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		return 0, "", fmt.Errorf("set the access mode: %w", err)
	}
	n, err := countRolledBack(ctx, c, query, args)
	return n, "", err
}

// countRolledBack runs query with args on c in a transaction that is
// always rolled back, and returns the rows it changed.
func countRolledBack(ctx context.Context, c *sql.Conn, query string, args []any) (int64, error) {
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin the transaction: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return n, tx.Rollback()
}

// notATable and hasTriggers are why a dry run is skipped on every engine.
func notATable(table string) string { return "its target " + table + " is not a table" }

func hasTriggers(table string) string {
	return "the table " + table + " has triggers, whose effects may reach outside the transaction"
}

// dryRun puts what a dry run of the request's statement found into it.
func (s *Set) dryRun(ctx context.Context, req *ConfirmRequest) {
	dr := s.db.DryRun(ctx, req.SQL)
	req.DryRun, req.DryRunReason = dr.Status, dr.Reason
	if dr.Status == DryRunOK {
		req.AffectedRows = &dr.Rows
	}
}
