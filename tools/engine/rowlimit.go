package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// rowLimitKey is the context key of WithRowLimit.
type rowLimitKey struct{}

// WithRowLimit returns a copy of ctx under which a write that a DB runs
// commits only when it changed at most max rows; one that changed more is
// rolled back, and its result says so (OverLimit). An allowance's bound
// holds this way at the moment of the change, whatever the trial run
// counted before it: a statement whose rows depend on when or where it
// runs (the clock, a random draw, the connection's id) may change more
// rows than its trial run did.
func WithRowLimit(ctx context.Context, max int64) context.Context {
	return context.WithValue(ctx, rowLimitKey{}, max)
}

// rowLimit returns the limit of WithRowLimit under ctx, or -1.
func rowLimit(ctx context.Context) int64 {
	if n, ok := ctx.Value(rowLimitKey{}).(int64); ok {
		return n
	}
	return -1
}

// overLimitError is a write rolled back for changing more rows than its
// limit.
type overLimitError struct{ rows, max int64 }

func (e *overLimitError) Error() string {
	return fmt.Sprintf("rolled back: it changed %d rows, more than the %d its allowance covers", e.rows, e.max)
}

// CheckCommit says whether the write may commit: an error when it changed
// more rows than the limit of WithRowLimit. Every engine calls it right
// before it commits a write.
func (c *Collector) CheckCommit() error {
	if rows := c.res.RowCount + c.changed; c.limit >= 0 && rows > c.limit {
		return &overLimitError{rows: rows, max: c.limit}
	}
	return nil
}

// RowCount is the rows of the statement so far: those it returned, or
// for a write without rows, those it changed.
func (c *Collector) RowCount() int64 { return c.res.RowCount }

// Limited reports whether the write runs under a row limit, so that an
// engine counts what it changes in cascade before it commits.
func (c *Collector) Limited() bool { return c.limit >= 0 }

// AddChanged records rows the write changed beyond its own (in cascade,
// or replaced), which count against the limit.
func (c *Collector) AddChanged(n int64) {
	if n > 0 {
		c.changed += n
	}
}

// CountAround counts, for a write under a row limit, the rows of the
// tables it may change in cascade, and returns the function that counts
// them again after the write and records the difference (AddChanged):
// for an engine without per-table counts of the transaction (MySQL,
// MariaDB, SQLite). It does nothing without a limit.
func (c *Collector) CountAround(ctx context.Context, tx *sql.Tx) (after func() error, err error) {
	if c.limit < 0 || len(c.counted) == 0 {
		return func() error { return nil }, nil
	}
	before, err := countRows(ctx, tx, c.counted)
	if err != nil {
		return nil, err
	}
	return func() error {
		now, err := countRows(ctx, tx, c.counted)
		if err != nil {
			return err
		}
		for _, ch := range cascadeOf(c.kind, c.res.RowCount, c.counted, before, now) {
			c.AddChanged(ch.Total())
		}
		return nil
	}, nil
}

// countAround sets the tables a write under a limit counts around it
// (CountAround): its own and those whose foreign keys lead to it.
func (db *DB) countAround(ctx context.Context, out *Collector, query string) {
	p, why := sqltext.PlainChange(query, db.dialect)
	if why != "" {
		return
	}
	kind, _, table, _, ok := p.Target()
	if !ok {
		return
	}
	out.kind, out.counted = kind, []string{table}
	if kind != "INSERT" {
		out.counted = append(out.counted, db.reaching(ctx, table)...)
	}
}

// overLimit returns the rows of a write that err says changed more than
// its limit, or 0.
func overLimit(err error) int64 {
	var e *overLimitError
	if errors.As(err, &e) {
		return e.rows
	}
	return 0
}

// StatementKind is the first word of the kind the classifier reads in a
// write of dialect d (INSERT, UPDATE, DELETE, REPLACE, MERGE), comments
// and a WITH clause before it left out; "" when it reads none.
func StatementKind(query string, d sqltext.Dialect) string {
	v, err := sqltext.Classify(query, d)
	if err != nil {
		return ""
	}
	kind := strings.TrimPrefix(v.Kind, "WITH ... ")
	kind, _, _ = strings.Cut(kind, " ")
	return kind
}

// TargetCascade is what a statement of kind that changed own rows did to
// its own table beyond them, from the table's count of rows before and
// after it, in the same transaction: the rows a foreign key of the table
// to itself removed, or that a conflict clause replaced (SQLite's OR
// REPLACE, MySQL's REPLACE). ok is false when it did nothing more.
func TargetCascade(kind string, own, before, after int64) (change TableChange, ok bool) {
	expected := int64(0) // an UPDATE keeps the count
	switch kind {
	case "DELETE":
		expected = -own
	case "INSERT", "REPLACE":
		expected = own
	}
	if gone := expected - (after - before); gone > 0 {
		return TableChange{Table: "the same table", Removed: gone}, true
	}
	return TableChange{}, false
}
