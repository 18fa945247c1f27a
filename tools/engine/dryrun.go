package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

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

// dryRunner is an engine that can run a data change and roll it back.
type dryRunner interface {
	// dryRun runs sql with args bound, a plain change of table (as
	// written in it), in a transaction it always rolls back, and returns
	// the rows it changed, and what it did to other tables: to those of
	// reaching at least, the tables whose foreign keys lead to table.
	// skip says why it did not run it, when it did not.
	dryRun(ctx context.Context, sql string, args []any, table string, reaching []string) (rows int64, cascade []TableChange, skip string, err error)
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
	p, why := sqltext.PlainChange(query, db.dialect)
	if why != "" {
		return DryRun{Status: DryRunSkipped, Reason: why}
	}
	kind, _, table, _, ok := p.Target()
	if !ok || kind != "INSERT" && kind != "UPDATE" && kind != "DELETE" {
		return DryRun{Status: DryRunSkipped, Reason: "only an INSERT, UPDATE or DELETE of one table is counted beforehand"}
	}
	runner, ok := db.eng.(dryRunner)
	if !ok {
		return DryRun{Status: DryRunSkipped, Reason: "this engine cannot count the rows beforehand"}
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
	rows, cascade, skip, err := runner.dryRun(runCtx, bound, args, table, reaching)
	switch {
	case skip != "":
		return DryRun{Status: DryRunSkipped, Reason: skip}
	case err == nil:
		return DryRun{Status: DryRunOK, Rows: rows, Cascade: cascade}
	case ctx.Err() != nil:
		return DryRun{Status: DryRunFailed, Reason: "cancelled"}
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) || db.eng.refusal(err) == refusedTimeout:
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
	parts := nameParts(table)
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
func (p *postgres) dryRun(ctx context.Context, query string, args []any, table string, _ []string) (int64, []TableChange, string, error) {
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
		return 0, nil, notATable(table), nil
	case triggers > 0:
		return 0, nil, hasTriggers(table), nil
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
func pgTableCounts(ctx context.Context, tx pgx.Tx, table string) (map[string]TableChange, error) {
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
	out := map[string]TableChange{}
	for rows.Next() {
		var c TableChange
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
func pgCascade(before, after map[string]TableChange, own int64) []TableChange {
	var out []TableChange
	for name, a := range after {
		b := before[name]
		c := TableChange{Table: name, Removed: a.Removed - b.Removed, Changed: a.Changed - b.Changed, Added: a.Added - b.Added}
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
	slices.SortFunc(out, func(a, b TableChange) int { return strings.Compare(a.Table, b.Table) })
	return out
}

// dryRun on MySQL and MariaDB: only an InnoDB table without triggers.
func (m *mysqlDB) dryRun(ctx context.Context, query string, args []any, table string, reaching []string) (int64, []TableChange, string, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return 0, nil, "", err
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
		return 0, nil, "", fmt.Errorf("there is no table %s", table)
	case err != nil:
		return 0, nil, "", err
	case !engine.Valid:
		return 0, nil, notATable(table), nil
	case !strings.EqualFold(engine.String, "InnoDB"):
		return 0, nil, fmt.Sprintf("the table %s is %s, an engine without transactions, so a rollback could not undo it", table, engine.String), nil
	case triggers > 0:
		return 0, nil, hasTriggers(table), nil
	}
	if err := m.prepareSession(ctx, c, true); err != nil {
		return 0, nil, "", err
	}
	if skip, err := mysqlUncounted(ctx, c, query, table, reaching); skip != "" || err != nil {
		return 0, nil, skip, err
	}
	// The target is counted too: a foreign key of the table to itself
	// (tree.parent_id ON DELETE CASCADE) removes rows of it that the
	// statement's own count leaves out.
	n, counted, err := countRolledBack(ctx, c, query, args, append([]string{table}, reaching...))
	var cascade []TableChange
	for _, ch := range counted {
		if ch.Table == table {
			if ch.Removed -= n; ch.Removed <= 0 {
				continue // an INSERT's own rows, or a DELETE's alone
			}
			ch.Table, ch.Added = "the same table", 0
		}
		cascade = append(cascade, ch)
	}
	return n, cascade, "", err
}

// mysqlUncounted says why a dry run cannot count what the statement does
// through foreign keys, if it cannot: MySQL and MariaDB keep no per-table
// counts, so a dry run counts the rows each table lost or gained, and a
// cascade that changes rows (ON UPDATE CASCADE, SET NULL, SET DEFAULT)
// changes none of those counts.
func mysqlUncounted(ctx context.Context, c *sql.Conn, query, table string, reaching []string) (string, error) {
	kind := ""
	if f := strings.Fields(query); len(f) > 0 {
		kind = strings.ToUpper(f[0])
	}
	if kind != "UPDATE" && kind != "DELETE" {
		return "", nil
	}
	names := []any{}
	marks := []string{}
	for _, t := range append([]string{table}, reaching...) {
		parts := nameParts(t)
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
	return "", nil
}

// dryRun on SQLite: a table without triggers. The rollback releases the
// write lock the statement took on the file.
func (s *sqliteDB) dryRun(ctx context.Context, query string, args []any, table string, reaching []string) (int64, []TableChange, string, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return 0, nil, "", err
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
		return 0, nil, "", err
	case !kind.Valid:
		return 0, nil, "", fmt.Errorf("there is no table %s", table)
	case kind.String != "table":
		return 0, nil, notATable(table), nil
	case triggers > 0:
		return 0, nil, hasTriggers(table), nil
	}
	if err := setAuthorizer(c, nil); err != nil {
		return 0, nil, "", err
	}
	if _, err := c.ExecContext(ctx, "PRAGMA query_only = 0"); err != nil {
		return 0, nil, "", fmt.Errorf("set the access mode: %w", err)
	}
	n, cascade, err := countRolledBack(ctx, c, query, args, reaching)
	return n, cascade, "", err
}

// countRolledBack runs query with args on c in a transaction that is
// always rolled back, and returns the rows it changed, and the rows that
// each table of reaching (quoted for SQL) lost or gained meanwhile.
func countRolledBack(ctx context.Context, c *sql.Conn, query string, args []any, reaching []string) (int64, []TableChange, error) {
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("begin the transaction: %w", err)
	}
	defer tx.Rollback()
	before, err := countRows(ctx, tx, reaching)
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
	after, err := countRows(ctx, tx, reaching)
	if err != nil {
		return 0, nil, err
	}
	var cascade []TableChange
	for i, t := range reaching {
		switch d := after[i] - before[i]; {
		case d < 0:
			cascade = append(cascade, TableChange{Table: t, Removed: -d})
		case d > 0:
			cascade = append(cascade, TableChange{Table: t, Added: d})
		}
	}
	return n, cascade, tx.Rollback()
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

// notATable and hasTriggers are why a dry run is skipped on every engine.
func notATable(table string) string { return "its target " + table + " is not a table" }

func hasTriggers(table string) string {
	return "the table " + table + " has triggers, whose effects may reach outside the transaction"
}
