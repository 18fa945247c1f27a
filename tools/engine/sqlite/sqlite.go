package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// SQLite's result codes for a write refused by query_only
// (SQLITE_READONLY) and by the authorizer (SQLITE_AUTH).
const (
	sqliteReadOnly = 8
	sqliteAuth     = 23
)

// sqliteBusyTimeout is how long, in milliseconds, a statement waits for a
// lock another program holds on the file.
const sqliteBusyTimeout = "5000"

// sqliteDB runs statements on a SQLite file through modernc.org/sqlite.
type sqliteDB struct {
	db   *sql.DB
	path string
}

// newSQLite prepares the pool of connections to src's file; it opens the
// file on first use.
func newSQLite(src sessionio.Source, _ engine.Options) (*sqliteDB, error) {
	path, err := sqlitePath(src.Database)
	if err != nil {
		return nil, err
	}
	// A file: URI carries the path escaped, so that any character of it
	// works. mode=rw opens the file read-write but never creates it: a
	// mistyped path is an error, not a new empty database. Reads are made
	// read-only per connection with PRAGMA query_only.
	q := url.Values{}
	q.Set("mode", "rw")
	q.Add("_pragma", "busy_timeout("+sqliteBusyTimeout+")")
	dsn := (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("prepare the SQLite settings: %w", err)
	}
	db.SetMaxIdleConns(2)
	db.SetConnMaxIdleTime(engine.IdleTimeout)
	return &sqliteDB{db: db, path: path}, nil
}

// sqlitePath returns the absolute path of a source's database file, with
// a leading ~/ for the home folder as in a shell.
func sqlitePath(p string) (string, error) {
	if p == "" {
		return "", errors.New("the database file path is missing")
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home folder for %s: %w", p, err)
		}
		p = filepath.Join(home, rest)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolve the database path %s: %w", p, err)
	}
	return abs, nil
}

// conn takes a connection, explaining why the file cannot be opened.
func (s *sqliteDB) conn(ctx context.Context) (*sql.Conn, error) {
	c, err := s.db.Conn(ctx)
	if err == nil {
		// The pool opens the file lazily: the first statement is where a
		// missing file shows.
		err = c.PingContext(ctx)
		if err != nil {
			c.Close()
		}
	}
	if err == nil {
		return c, nil
	}
	if _, statErr := os.Stat(s.path); errors.Is(statErr, fs.ErrNotExist) {
		return nil, fmt.Errorf("the SQLite database file %s does not exist; check the source's database path in sources.yaml", s.path)
	}
	return nil, fmt.Errorf("open the SQLite database %s: %w", s.path, err)
}

func (s *sqliteDB) Version(ctx context.Context) (string, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var v string
	if err := c.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", err
	}
	return "SQLite " + v, nil
}

// Run runs the statement on a connection of its own. The driver interrupts
// SQLite when ctx ends, which also enforces StatementTimeout.
func (s *sqliteDB) Run(ctx context.Context, query string, write bool, out *engine.Collector) error {
	c, err := s.conn(ctx)
	if err != nil {
		return err
	}
	keep := false
	defer func() { engine.ReleaseSQLConn(c, keep) }()
	// The guards stay on the connection, so every run sets them.
	if err := setAuthorizer(c, nil); err != nil {
		return err
	}
	pragma := "PRAGMA query_only = 1"
	if write {
		pragma = "PRAGMA query_only = 0"
	}
	if _, err := c.ExecContext(ctx, pragma); err != nil {
		return fmt.Errorf("set the access mode: %w", err)
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin the transaction: %w", err)
	}
	defer tx.Rollback()
	if write {
		return s.write(ctx, tx, query, out)
	}
	if err := s.read(ctx, c, tx, query, out); err != nil {
		return err
	}
	keep = true
	return nil
}

// read runs a statement in tx, which it rolls back.
//
// PRAGMA query_only makes SQLite refuse any change to the database files.
// An authorizer, while the statement runs, refuses what query_only does
// not cover: a PRAGMA that sets (query_only = 0 would switch the guard
// off), transaction control (a COMMIT would end tx) and ATTACH or DETACH
// (which outlive the statement and can create files). This matters because
// the driver runs every statement of a script, not only the first. Writes
// may compile, so that EXPLAIN of a write works: query_only refuses them
// when they run.
func (s *sqliteDB) read(ctx context.Context, c *sql.Conn, tx *sql.Tx, query string, out *engine.Collector) error {
	if err := setAuthorizer(c, readOnlyAuthorizer); err != nil {
		return err
	}
	err := engine.SQLQuery(ctx, tx, query, out, converter)
	// The authorizer would refuse the ROLLBACK itself.
	if err2 := setAuthorizer(c, nil); err == nil {
		err = err2
	}
	if err2 := tx.Rollback(); err == nil {
		err = err2
	}
	return err
}

// setAuthorizer installs fn as the authorizer of c's connection; nil
// removes it.
func setAuthorizer(c *sql.Conn, fn sqlite.AuthorizerFn) error {
	err := c.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver (%T) has no authorizer", dc)
		}
		return r.RegisterAuthorizer(fn)
	})
	if err != nil {
		return fmt.Errorf("set the authorizer: %w", err)
	}
	return nil
}

// readOnlyAuthorizer refuses the operations of a read that query_only lets
// through; see sqliteDB.read.
func readOnlyAuthorizer(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthTransaction, sqlite.AuthSavepoint, sqlite.AuthAttach, sqlite.AuthDetach:
		return sqlite.AuthorizerDeny
	case sqlite.AuthPragma:
		if !readingPragma(arg1, arg2) {
			return sqlite.AuthorizerDeny
		}
	}
	return sqlite.AuthorizerOK
}

// readingPragma reports whether a PRAGMA of that name and argument only
// reads: one without an argument reads its setting (query_only refuses
// the writes of the few that act, such as optimize), and a few take an
// argument that names what to read.
func readingPragma(name, arg string) bool {
	if arg == "" {
		return true
	}
	switch strings.ToLower(name) {
	case "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
		"foreign_key_list", "foreign_key_check", "integrity_check", "quick_check":
		return true
	}
	return false
}

// write runs a confirmed statement in tx and commits it. The rows it
// affected are the growth of total_changes(), which, unlike changes(), is
// not left over from an earlier statement when this one is DDL.
func (s *sqliteDB) write(ctx context.Context, tx *sql.Tx, query string, out *engine.Collector) error {
	var before, after int64
	if err := tx.QueryRowContext(ctx, "SELECT total_changes()").Scan(&before); err != nil {
		return err
	}
	// Under an allowance's bound, the rows OR REPLACE removes count.
	counted, err := out.CountAround(ctx, tx)
	if err != nil {
		return fmt.Errorf("count the rows of the tables it may change: %w", err)
	}
	if err := engine.SQLQuery(ctx, tx, query, out, converter); err != nil {
		return err
	}
	// The statement's own rows: total_changes() counts what its triggers
	// wrote too, and changes() alone would repeat an earlier statement's
	// count after one that changes no rows (DDL).
	var own int64
	if err := tx.QueryRowContext(ctx, "SELECT total_changes(), changes()").Scan(&after, &own); err == nil && after > before {
		out.SetAffected(own)
	}
	if err := counted(); err != nil {
		return fmt.Errorf("count the rows of the tables it may change: %w", err)
	}
	if err := out.CheckCommit(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (s *sqliteDB) Refusal(err error) engine.Refusal {
	var e *sqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqliteReadOnly, sqliteAuth:
			return engine.RefusedReadOnly
		}
	}
	return engine.RefusedOther
}

func (s *sqliteDB) Close() error { return s.db.Close() }

func (s *sqliteDB) CloseIdle() { engine.CloseIdleSQL(s.db, 2) }

// Driver opens SQLite sources. SQLite has no statement timeout of
// its own: the driver interrupts it when the context ends.
var Driver = engine.Driver{
	Dialect:       sqltext.DialectSQLite,
	ClientTimeout: true,
	Open:          func(src sessionio.Source, opts engine.Options) (engine.Engine, error) { return newSQLite(src, opts) },
}
