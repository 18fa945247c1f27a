package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
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
	// Rows is the count of rows the statement changes itself.
	Rows int64
	// Cascade is what the statement did to other tables through their
	// foreign keys (ON DELETE CASCADE, SET NULL, ...), one entry a table.
	Cascade []TableChange
	Reason  string
}

// TableChange is the rows a dry run found a statement removed, changed or
// added in a table other than its target.
type TableChange struct {
	Table   string `json:"table"`
	Removed int64  `json:"removed,omitempty"`
	Changed int64  `json:"changed,omitempty"`
	Added   int64  `json:"added,omitempty"`
}

// Total is the rows of the change, however changed.
func (c TableChange) Total() int64 { return c.Removed + c.Changed + c.Added }

// DryRun counts the rows a write would change without changing them, for
// INSERT, UPDATE and DELETE: in a transaction that is always rolled back,
// under the statement timeout. It skips a statement whose effects a
// rollback may not undo: one that reaches outside the database or calls a
// function with effects of its own, one on a table with triggers, or one
// on a table of an engine without transactions (MyISAM). What a rollback
// never undoes is documented in the README: a sequence's nextval (an
// INSERT that takes a serial id) stays taken.
func (db *DB) DryRun(ctx context.Context, query string) DryRun {
	p, why := sqltext.PlainChange(query, db.dialect)
	if why != "" {
		return DryRun{Status: DryRunSkipped, Reason: why}
	}
	kind, _, table, _, ok := p.Target()
	if !ok || kind != "INSERT" && kind != "UPDATE" && kind != "DELETE" {
		return DryRun{Status: DryRunSkipped, Reason: "only an INSERT, UPDATE or DELETE of one table is counted beforehand"}
	}
	runCtx, cancel := context.WithTimeout(ctx, db.Opts.StatementTimeout)
	defer cancel()
	// A statement with masked tokens runs with their values bound, as
	// it will when confirmed (withBound).
	bound, args := boundFor(ctx, query)
	var reaching []string
	if kind != "INSERT" {
		reaching = db.reaching(ctx, table)
	}
	rows, cascade, skip, err := db.eng.DryRun(runCtx, bound, args, table, reaching)
	switch {
	case skip != "":
		return DryRun{Status: DryRunSkipped, Reason: skip}
	case err == nil:
		return DryRun{Status: DryRunOK, Rows: rows, Cascade: cascade}
	case ctx.Err() != nil:
		return DryRun{Status: DryRunFailed, Reason: "cancelled"}
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) || db.eng.Refusal(err) == RefusedTimeout:
		return DryRun{Status: DryRunFailed, Reason: fmt.Sprintf("it took longer than the statement timeout (%s)", db.Opts.StatementTimeout)}
	}
	return DryRun{Status: DryRunFailed, Reason: db.redact.Clean(err.Error())}
}

// reaching returns the tables, quoted for SQL, whose foreign keys lead to
// table (as written in a statement), directly or through others: those a
// DELETE or UPDATE of it may change in cascade. A schema that cannot be
// read gives none.
func (db *DB) reaching(ctx context.Context, table string) []string {
	schema, err := db.Schema(ctx)
	if err != nil {
		return nil
	}
	parts := NameParts(table)
	name, schemaName := parts[len(parts)-1], ""
	if len(parts) > 1 {
		schemaName = parts[len(parts)-2]
	}
	type ref struct{ name, schema string }
	refers := func(fk ForeignKey, r ref) bool {
		return strings.EqualFold(fk.RefTable, r.name) && (r.schema == "" || fk.RefSchema == "" || strings.EqualFold(fk.RefSchema, r.schema))
	}
	seen := map[int]bool{}
	for i, t := range schema.Tables {
		if strings.EqualFold(t.Name, name) && (schemaName == "" || strings.EqualFold(t.Schema, schemaName)) {
			seen[i] = true // the target: its own rows are counted apart
		}
	}
	var out []string
	for queue := []ref{{name, schemaName}}; len(queue) > 0; queue = queue[1:] {
		for i := range schema.Tables {
			t := &schema.Tables[i]
			if seen[i] || !slices.ContainsFunc(t.ForeignKeys, func(fk ForeignKey) bool { return refers(fk, queue[0]) }) {
				continue
			}
			seen[i] = true
			out = append(out, schema.TableName(t))
			queue = append(queue, ref{t.Name, t.Schema})
		}
	}
	return out
}

// NameParts splits a table name as written (schema.table, quoted or not)
// into its parts without their quotes.
func NameParts(name string) []string {
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

// CountWithTarget runs query with args on c in a transaction that is
// always rolled back, and returns the rows it changed and what it did in
// cascade: the rows each table of reaching (quoted for SQL) lost or
// gained, and, in its own table (table, quoted), what it removed beyond
// its own rows through a foreign key of the table to itself or a conflict
// clause that replaces rows (SQLite's OR REPLACE, MySQL's REPLACE), as
// "the same table"; kind is the statement's (see StatementKind).
func CountWithTarget(ctx context.Context, c *sql.Conn, query string, args []any, kind, table string, reaching []string) (int64, []TableChange, error) {
	tables := append([]string{table}, reaching...)
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("begin the transaction: %w", err)
	}
	defer tx.Rollback()
	before, err := countRows(ctx, tx, tables)
	if err != nil {
		return 0, nil, err
	}
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil, err
	}
	after, err := countRows(ctx, tx, tables)
	if err != nil {
		return 0, nil, err
	}
	return n, cascadeOf(kind, n, tables, before, after), tx.Rollback()
}

// cascadeOf is what a write of kind that changed own rows did beyond them,
// from the counts of tables (its own first) before and after it: in its
// own table (TargetCascade), and the rows each other table lost or gained.
func cascadeOf(kind string, own int64, tables []string, before, after []int64) []TableChange {
	var cascade []TableChange
	if ch, ok := TargetCascade(kind, own, before[0], after[0]); ok {
		cascade = append(cascade, ch)
	}
	for i := 1; i < len(tables); i++ {
		switch d := after[i] - before[i]; {
		case d < 0:
			cascade = append(cascade, TableChange{Table: tables[i], Removed: -d})
		case d > 0:
			cascade = append(cascade, TableChange{Table: tables[i], Added: d})
		}
	}
	return cascade
}

// countRows counts the rows of each table, quoted for SQL.
func countRows(ctx context.Context, tx *sql.Tx, tables []string) ([]int64, error) {
	counts := make([]int64, len(tables))
	for i, t := range tables {
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&counts[i]); err != nil {
			return nil, fmt.Errorf("count the rows of %s: %w", t, err)
		}
	}
	return counts, nil
}

// NotATable and HasTriggers are why a dry run is skipped on every engine.
func NotATable(table string) string { return "its target " + table + " is not a table" }

func HasTriggers(table string) string {
	return "the table " + table + " has triggers, whose effects may reach outside the transaction"
}
