package tools

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/aiq/aiq-rpc/sessionio"
)

// estimator is an engine that can estimate, without running a read, how
// many rows it reads or returns.
type estimator interface {
	estimate(ctx context.Context, query string) (float64, error)
}

// costGateTimeout bounds the gate's own work: past it the read runs as it
// would without the gate.
const costGateTimeout = 2 * time.Second

// maxEstimatedRows is the source's cost gate.
func (db *DB) maxEstimatedRows() int64 {
	if n := db.Source().MaxEstimatedRows; n > 0 {
		return n
	}
	return sessionio.DefaultMaxEstimatedRows
}

// costly returns the engine's estimate of the rows a read goes through,
// and whether it is above the source's max_estimated_rows. An estimate
// that cannot be had (an engine without one, a statement EXPLAIN refuses)
// lets the read through: it still runs read-only under the statement
// timeout.
func (db *DB) costly(ctx context.Context, query string) (float64, bool) {
	est, ok := db.eng.(estimator)
	if !ok {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, costGateTimeout)
	defer cancel()
	rows, err := est.estimate(ctx, query)
	if err != nil {
		return 0, false
	}
	return rows, rows > float64(db.maxEstimatedRows())
}

// estimate on PostgreSQL: the planner's rows of the plan's top node, from
// EXPLAIN (never ANALYZE) in a read-only transaction.
func (p *postgres) estimate(ctx context.Context, query string) (float64, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return 0, err
	}
	reuse := false
	defer func() { p.release(c, reuse) }()
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, err
	}
	defer rollback(tx)
	var plan []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, pgx.QueryExecModeExec).Scan(&plan); err != nil {
		return 0, err
	}
	var out []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &out); err != nil || len(out) == 0 {
		return 0, fmt.Errorf("read the plan: %v", err)
	}
	// EXPLAIN leaves no session state to reset: a rollback is enough.
	reuse = tx.Rollback(ctx) == nil
	return out[0].Plan.Rows, nil
}

// estimate on MySQL and MariaDB: the product of the rows EXPLAIN expects
// to read from each table, as a nested loop reads them.
func (m *mysqlDB) estimate(ctx context.Context, query string) (float64, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return 0, err
	}
	// EXPLAIN runs nothing and leaves no session state but the read-only
	// mode and timeout that every run sets again: the connection is kept.
	defer releaseSQLConn(c, true)
	if err := m.prepareSession(ctx, c, false); err != nil {
		return 0, err
	}
	rows, err := c.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	at := -1
	for i, name := range cols {
		if strings.EqualFold(name, "rows") {
			at = i
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("EXPLAIN gave no rows column")
	}
	total := 1.0
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.NullFloat64)
		if i != at {
			vals[i] = new(any)
		}
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return 0, err
		}
		if n := vals[at].(*sql.NullFloat64); n.Valid && n.Float64 > 0 {
			total *= n.Float64
		}
	}
	return total, rows.Err()
}

// sqliteScan matches a full scan in EXPLAIN QUERY PLAN's detail: "SCAN t",
// "SCAN t AS x", "SCAN TABLE t" in older versions.
var sqliteScan = regexp.MustCompile(`^SCAN (?:TABLE )?("(?:[^"]|"")+"|\S+)`)

// estimate on SQLite: the largest row count of a table the plan reads in
// full. SQLite's planner gives no row estimate; a full scan of a large
// table is what makes a read slow.
func (s *sqliteDB) estimate(ctx context.Context, query string) (float64, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer releaseSQLConn(c, true) // every run sets query_only again
	if _, err := c.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return 0, err
	}
	rows, err := c.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query)
	if err != nil {
		return 0, err
	}
	var tables []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			rows.Close()
			return 0, err
		}
		if m := sqliteScan.FindStringSubmatch(detail); m != nil && m[1] != "CONSTANT" {
			tables = append(tables, strings.Trim(m[1], `"`))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	most := 0.0
	for _, t := range tables {
		var n float64
		q := `SELECT count(*) FROM "` + strings.ReplaceAll(t, `"`, `""`) + `"`
		if err := c.QueryRowContext(ctx, q).Scan(&n); err != nil {
			continue // a subquery's alias, a CTE: not a table
		}
		most = max(most, n)
	}
	return most, nil
}

// costGate asks the user before a read the engine estimates above the
// source's max_estimated_rows, as before a write, with risk "cost". It
// returns nil when the read may run, else the result that says why not.
func (s *Set) costGate(ctx context.Context, query string) *StatementResult {
	rows, over := s.db.costly(ctx, query)
	if !over {
		return nil
	}
	limit := s.db.maxEstimatedRows()
	req := ConfirmRequest{Tool: ToolExecuteSQL, SQL: query, Risk: "cost", Label: s.db.Source().Label,
		Reason: fmt.Sprintf("The database estimates that this query goes through about %s rows, above this source's limit of %s (max_estimated_rows).",
			groupThousands(int64(rows)), groupThousands(limit))}
	if s.confirm == nil {
		return s.refused(query, StatusRejected,
			"This query is estimated to go through more rows than this source allows, and no one can confirm it here, so it did not run.",
			"not run: "+strings.TrimSuffix(req.Reason, ".")+"; no one can confirm it here. Narrow it (a WHERE, a LIMIT, an aggregate) instead")
	}
	return s.ask(ctx, req, Shape{})
}

// Export runs sql, one read, for an export of all its rows (see
// WithRowSink): through the cost gate, as a read of the model's goes,
// without becoming the Set's last result. What the classifier refuses
// reaches Run, which refuses it.
func (s *Set) Export(ctx context.Context, sql string) *StatementResult {
	if v, err := Classify(sql, s.db.Dialect()); err == nil && v.Class != Write {
		if res := s.costGate(ctx, sql); res != nil {
			return res
		}
	}
	return s.db.Run(ctx, sql, false)
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
