package engine

import (
	"context"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// Engine is what differs between PostgreSQL, MySQL (with MariaDB and
// seekdb) and SQLite: each engine's folder under tools/engine implements
// it, and a DB asks it what only the engine can answer. Its methods must
// be safe for concurrent use.
type Engine interface {
	// Version returns the product and version, such as "PostgreSQL 15.4".
	Version(ctx context.Context) (string, error)
	// Schema reads the catalog: the tables and columns, with a few
	// queries for the whole database, never one per table.
	Schema(ctx context.Context) (*Schema, error)
	// Run executes one statement inside a transaction, read-only unless
	// write, streaming its rows into out, with out's arguments bound. A
	// read is always rolled back; a write is committed when it succeeded.
	// The engine enforces Options.StatementTimeout on the server, and
	// stops the statement there when ctx ends.
	Run(ctx context.Context, sql string, write bool, out *Collector) error
	// Refusal says what a failed Run's error means.
	Refusal(err error) Refusal
	// Estimate returns, without running the read query, how many rows
	// it goes through, for the cost gate.
	Estimate(ctx context.Context, query string) (float64, error)
	// DryRun runs sql with args bound, a plain change of table (as
	// written in it), in a transaction it always rolls back, and returns
	// the rows it changed, and what it did to other tables: to those of
	// reaching at least, the tables (quoted for SQL) whose foreign keys
	// lead to table. skip says why it did not run it, when it did not.
	DryRun(ctx context.Context, sql string, args []any, table string, reaching []string) (rows int64, cascade []TableChange, skip string, err error)
	// CloseIdle closes the connections no statement uses.
	CloseIdle()
	// Close closes every connection.
	Close() error
}

// RolledBackExplainer is an Engine that refuses even the EXPLAIN of a
// write in a read-only transaction (MySQL, MariaDB), and so explains it
// in a read-write transaction that is always rolled back.
type RolledBackExplainer interface {
	// RunRolledBack runs the EXPLAIN statement sql in a read-write
	// transaction that is never committed, streaming its rows into out.
	RunRolledBack(ctx context.Context, sql string, out *Collector) error
}

// Driver opens the Engine of the sources of one dialect. Adding an engine
// is a folder under tools/engine holding its Driver, and the Driver in
// the list that tools.Drivers returns.
type Driver struct {
	// Dialect is the dialect of the sources the driver opens, as
	// DialectOf gives it for their type.
	Dialect sqltext.Dialect
	// ClientTimeout is true for an engine without a statement timeout of
	// its own (SQLite): the client's deadline then stops a statement at
	// once, without waiting for the server's timeout to fire first.
	ClientTimeout bool
	// Open prepares the engine of src. It validates the configuration but
	// does not connect: a server that is down fails the statements.
	Open func(src sessionio.Source, opts Options) (Engine, error)
}

// IdleTimeout is how long an unused connection stays open: a source that
// no one queries holds none of the server's connection slots.
const IdleTimeout = time.Minute

// Refusal is what an engine's error means for the result.
type Refusal int

// The Refusals.
const (
	RefusedOther    Refusal = iota // a failure of the statement itself
	RefusedTimeout                 // the server stopped the statement at StatementTimeout
	RefusedReadOnly                // the read-only transaction refused a write
)
