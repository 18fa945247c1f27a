package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// DryRun on PostgreSQL: a table with triggers or rules (other than the
// internal triggers of foreign keys, whose cascades the rollback undoes)
// is skipped.
func (p *postgres) DryRun(ctx context.Context, query string, args []any, table string, _ []string) (int64, []engine.TableChange, string, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return 0, nil, "", err
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
		return 0, nil, "", fmt.Errorf("there is no table %s", table)
	case err != nil:
		return 0, nil, "", err
	case kind != "r" && kind != "p":
		return 0, nil, engine.NotATable(table), nil
	case triggers > 0:
		return 0, nil, engine.HasTriggers(table), nil
	case rules > 0:
		return 0, nil, "the table " + table + " has rules, which may turn the statement into others", nil
	}
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadWrite})
	if err != nil {
		return 0, nil, "", fmt.Errorf("begin the transaction: %w", err)
	}
	defer rollback(tx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", p.timeout)); err != nil {
		return 0, nil, "", fmt.Errorf("set the statement timeout: %w", err)
	}
	before, err := pgTableCounts(ctx, tx, table)
	if err != nil {
		return 0, nil, "", fmt.Errorf("count the rows of other tables: %w", err)
	}
	tag, err := tx.Exec(ctx, query, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return 0, nil, "", err
	}
	after, err := pgTableCounts(ctx, tx, table)
	if err != nil {
		return 0, nil, "", fmt.Errorf("count the rows of other tables: %w", err)
	}
	reuse = endRead(ctx, c, tx) // rolled back, the session reset
	return tag.RowsAffected(), pgCascade(before, after, tag.RowsAffected()), "", nil
}

// pgTableCounts reads the rows this backend removed, changed and added in
// each table other than table and not yet reported to the statistics:
// PostgreSQL keeps these counts per table, and reports them only between
// transactions, so the difference of two reads in one transaction is what
// the statements between them did.
func pgTableCounts(ctx context.Context, tx pgx.Tx, table string) (map[string]engine.TableChange, error) {
	var target string
	if err := tx.QueryRow(ctx, `SELECT CASE WHEN n.nspname = ANY (current_schemas(false)) THEN quote_ident(c.relname)
			ELSE quote_ident(n.nspname) || '.' || quote_ident(c.relname) END
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`, table).Scan(&target); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT CASE WHEN schemaname = ANY (current_schemas(false)) THEN quote_ident(relname)
			ELSE quote_ident(schemaname) || '.' || quote_ident(relname) END,
		n_tup_del, n_tup_upd, n_tup_ins
		FROM pg_stat_xact_user_tables
		WHERE n_tup_del + n_tup_upd + n_tup_ins > 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]engine.TableChange{}
	for rows.Next() {
		var c engine.TableChange
		if err := rows.Scan(&c.Table, &c.Removed, &c.Changed, &c.Added); err != nil {
			return nil, err
		}
		if c.Table == target {
			c.Table = ""
		}
		out[c.Table] = c
	}
	return out, rows.Err()
}

// pgCascade is what changed between two reads of pgTableCounts, by table
// name; the target's counts (under "") are its own rows plus what a
// foreign key of the table to itself did, and only the latter is cascade.
func pgCascade(before, after map[string]engine.TableChange, own int64) []engine.TableChange {
	var out []engine.TableChange
	for name, a := range after {
		b := before[name]
		c := engine.TableChange{Table: name, Removed: a.Removed - b.Removed, Changed: a.Changed - b.Changed, Added: a.Added - b.Added}
		if name == "" {
			// The statement's own rows are in the count of its kind,
			// the largest.
			switch max(c.Removed, c.Changed, c.Added) {
			case c.Removed:
				c.Removed -= own
			case c.Changed:
				c.Changed -= own
			default:
				c.Added -= own
			}
			c.Table = "the same table"
		}
		if c.Total() > 0 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b engine.TableChange) int { return strings.Compare(a.Table, b.Table) })
	return out
}
