package engine

import "context"

// MySQL and MariaDB refuse even EXPLAIN of a write inside a read-only
// transaction (error 1792), so explain_sql runs the EXPLAIN of a write
// there in a read-write transaction that is always rolled back. It gets
// there only once the classifier has read the whole text as a plain
// EXPLAIN, which plans the statement without running it; the rollback
// backs that up.

// ExplainsRolledBack reports whether the engine explains a write with
// ExplainRolledBack, as it refuses even its EXPLAIN read-only.
func (db *DB) ExplainsRolledBack() bool {
	_, ok := db.eng.(RolledBackExplainer)
	return ok
}

// ExplainRolledBack runs an EXPLAIN statement, on an engine that is a
// RolledBackExplainer (MySQL, MariaDB), in a transaction
// that is rolled back whatever happens, under the statement timeout.
func (db *DB) ExplainRolledBack(ctx context.Context, sql string) *StatementResult {
	m, ok := db.eng.(RolledBackExplainer)
	if !ok {
		return db.Failed(sql, StatusError, "only MySQL and MariaDB explain a write outside a read-only transaction")
	}
	res := &StatementResult{SQL: sql, ModelBytes: db.Opts.ModelBytes}
	runCtx, cancel := context.WithTimeout(ctx, db.Opts.StatementTimeout+serverGrace)
	defer cancel()
	out := newCollector(res, db.Opts.MaxRows)
	if err := m.RunRolledBack(runCtx, sql, out); err != nil {
		res.RowCount, res.Columns, res.Rows, res.Truncated = 0, nil, nil, false
		db.explain(ctx, runCtx, res, err, false)
		return res
	}
	res.Status = StatusSuccess
	return res
}
