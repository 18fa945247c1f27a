// Package dbtest gives tests real databases: a throwaway PostgreSQL or
// MariaDB server started from the Debian packages, or a SQLite file. It is
// imported by tests only, never by the aiq-rpc binary.
//
// One server of each engine is started per test binary, on first use, on a
// free 127.0.0.1 port, with its files in a fresh folder under the system's
// temporary folder. Every call of Postgres or MariaDB gets a database of its
// own, dropped when the test ends, owned by a user whose password is
// Password. The servers stop when Main returns, so a package that uses them
// has
//
//	func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }
//
// Should the test binary die without running Main's end (a timeout, a
// SIGKILL), the kernel signals the servers as their parent dies (Linux's
// parent-death signal) and the next binary that starts a server removes the
// folders whose owner process is gone.
//
// Where a server's binaries are missing, the tests that need it are skipped
// with the reason, unless AIQ_DBTEST_REQUIRE=1, which makes that a failure
// (for CI, which installs them).
package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Password is the password of the user of every database these helpers
// create. It holds the characters that break connection strings and URLs,
// so that tests can check that connections are built without pasting and
// that no error ever shows it.
const Password = "p@ss:w/rd?#x"

// User is the user that owns the databases these helpers create.
const User = "aiq_tester"

// Superuser is a user of the PostgreSQL and MariaDB servers with every
// privilege (a PostgreSQL superuser; ALL on *.* in MariaDB), with
// Password, for tests of what a careless setup would allow.
const Superuser = "aiq_superuser"

// AsSuperuser returns src logged in as Superuser; an SQLite source has no
// users and is returned as it is.
func AsSuperuser(src sessionio.Source) sessionio.Source {
	if src.Type != sessionio.TypeSQLite {
		src.Username = Superuser
	}
	return src
}

// requireEnv names the variable that turns a missing server into a failure.
const requireEnv = "AIQ_DBTEST_REQUIRE"

// startTimeout bounds starting a server and waiting for it to accept
// connections.
const startTimeout = 60 * time.Second

// servers holds the servers started by this test binary, so that Main can
// stop them. A test helper may keep this process-wide state; product code
// never does.
var servers = struct {
	mu      sync.Mutex
	started []*process
}{}

// Main runs the tests and then stops the servers they started. Call it from
// TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	StopServers()
	return code
}

// StopServers stops every server started so far and removes its files.
// Main calls it; later calls of Postgres or MariaDB fail.
func StopServers() {
	postgres.close()
	mariadb.close()
	servers.mu.Lock()
	started := servers.started
	servers.started = nil
	servers.mu.Unlock()
	for _, p := range started {
		p.stop()
	}
}

// track records a started server for StopServers.
func track(p *process) {
	servers.mu.Lock()
	defer servers.mu.Unlock()
	servers.started = append(servers.started, p)
}

// SQLite returns a source on a new, empty SQLite database file in the
// test's temporary folder.
func SQLite(t testing.TB) sessionio.Source {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.sqlite")
	// A file of zero bytes is an empty SQLite database; creating it lets
	// the code under test open it without the right to create files.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatalf("create the SQLite database: %v", err)
	}
	return sessionio.Source{Name: "sqlite-test", Type: sessionio.TypeSQLite, Database: path}
}

// Seed creates table t(id int primary key, name text) in src's database
// with the rows (1, 'one'), (2, 'two') and (3, 'three').
func Seed(t testing.TB, src sessionio.Source) {
	t.Helper()
	Exec(t, src,
		"CREATE TABLE t (id int PRIMARY KEY, name text)",
		"INSERT INTO t (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three')",
	)
}

// Exec runs each statement on src's database, outside of any code under
// test, and fails the test on the first error.
func Exec(t testing.TB, src sessionio.Source, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := connect(ctx, src)
	if err != nil {
		t.Fatalf("connect to %s: %v", src.Type, err)
	}
	defer c.close()
	for _, s := range stmts {
		if err := c.exec(ctx, s); err != nil {
			t.Fatalf("%s: %s: %v", src.Type, s, err)
		}
	}
}

// QueryInt runs a query that returns one integer on src's database, such as
// a count, and returns it. It fails the test on an error.
func QueryInt(t testing.TB, src sessionio.Source, query string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := connect(ctx, src)
	if err != nil {
		t.Fatalf("connect to %s: %v", src.Type, err)
	}
	defer c.close()
	n, err := c.queryInt(ctx, query)
	if err != nil {
		t.Fatalf("%s: %s: %v", src.Type, query, err)
	}
	return n
}

// TableExists reports whether src's database has a table or view of that
// name.
func TableExists(t testing.TB, src sessionio.Source, name string) bool {
	t.Helper()
	quoted := "'" + strings.ReplaceAll(name, "'", "''") + "'"
	var q string
	switch src.Type {
	case sessionio.TypeSQLite:
		q = "SELECT count(*) FROM sqlite_master WHERE name = " + quoted
	case sessionio.TypePostgreSQL:
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = " + quoted
	default:
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = " + quoted
	}
	return QueryInt(t, src, q) > 0
}

// conn is a connection of these helpers to any engine.
type conn interface {
	exec(ctx context.Context, query string) error
	queryInt(ctx context.Context, query string) (int64, error)
	queryStrings(ctx context.Context, query string) ([]string, error)
	close()
}

// connect opens a connection to src's database with the driver of its type.
func connect(ctx context.Context, src sessionio.Source) (conn, error) {
	switch src.Type {
	case sessionio.TypeSQLite:
		// A file: URI, so that any character of the path works.
		path, err := filepath.Abs(src.Database)
		if err != nil {
			return nil, err
		}
		db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String())
		if err != nil {
			return nil, err
		}
		return sqlConn{db}, nil
	case sessionio.TypePostgreSQL:
		return connectPostgres(ctx, pgSourceConfig(src))
	case sessionio.TypeMySQL, sessionio.TypeSeekDB:
		return connectMySQL(ctx, mysqlSourceConfig(src))
	}
	return nil, fmt.Errorf("unknown source type %q", src.Type)
}

// sqlConn is a conn through database/sql.
type sqlConn struct{ db *sql.DB }

func (c sqlConn) exec(ctx context.Context, query string) error {
	_, err := c.db.ExecContext(ctx, query)
	return err
}

func (c sqlConn) queryInt(ctx context.Context, query string) (int64, error) {
	var n int64
	err := c.db.QueryRowContext(ctx, query).Scan(&n)
	return n, err
}

func (c sqlConn) close() { c.db.Close() }

// server is one engine's server of this test binary, started on first use.
type server struct {
	name  string
	start func(ctx context.Context) (*instance, error)

	mu      sync.Mutex
	started bool
	closed  bool
	inst    *instance
	err     error
	missing string // why the binaries cannot be found; "" when they can
	nextDB  int
}

// instance is a running server and the way to make databases on it.
type instance struct {
	proc *process
	// createDB makes a database owned by User and returns its source;
	// dropDB removes it.
	createDB func(ctx context.Context, name string) (sessionio.Source, error)
	dropDB   func(ctx context.Context, name string) error
}

// database returns a fresh database on the server, starting the server on
// first use, and drops it when t ends.
func (s *server) database(t testing.TB) sessionio.Source {
	t.Helper()
	inst, name := s.get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := inst.createDB(ctx, name)
	if err != nil {
		t.Fatalf("%s: create database %s: %v", s.name, name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := inst.dropDB(ctx, name); err != nil {
			t.Errorf("%s: drop database %s: %v", s.name, name, err)
		}
	})
	return src
}

// get returns the running server, starting it if need be, and the name of
// a new database. It skips or fails t when the server cannot run.
func (s *server) get(t testing.TB) (*instance, string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		t.Fatalf("%s: the test servers were already stopped", s.name)
	}
	if !s.started {
		s.started = true
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		s.inst, s.err = s.start(ctx)
		cancel()
		if err, ok := s.err.(missingError); ok {
			s.missing = err.Error()
		}
	}
	if s.missing != "" {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s is required (%s=1) but %s", s.name, requireEnv, s.missing)
		}
		t.Skipf("skipped: %s; install it (apt-get install postgresql mariadb-server) to run this test", s.missing)
	}
	if s.err != nil {
		t.Fatalf("start %s: %v", s.name, s.err)
	}
	s.nextDB++
	return s.inst, "aiq_test_" + strconv.Itoa(s.nextDB)
}

// close marks the server closed; StopServers stops its process.
func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

// missingError says that a server's binaries are not installed.
type missingError string

func (e missingError) Error() string { return string(e) }

// isRoot reports whether the tests run as root, as they do in CI.
func isRoot() bool { return os.Geteuid() == 0 }

// processAlive reports whether a process of that id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// QueryStrings runs queries on src's database, over one connection, and
// returns the rows of all of them in order, each row's values as text
// joined by "|", NULL as "NULL". It fails the test on an error.
func QueryStrings(t testing.TB, src sessionio.Source, queries ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := connect(ctx, src)
	if err != nil {
		t.Fatalf("connect to %s: %v", src.Type, err)
	}
	defer c.close()
	var all []string
	for _, q := range queries {
		rows, err := c.queryStrings(ctx, q)
		if err != nil {
			t.Fatalf("%s: %s: %v", src.Type, q, err)
		}
		all = append(all, rows...)
	}
	return all
}

// joinRow formats a row's values for QueryStrings.
func joinRow(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		switch v := v.(type) {
		case nil:
			parts[i] = "NULL"
		case []byte:
			parts[i] = string(v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, "|")
}

func (c sqlConn) queryStrings(ctx context.Context, query string) ([]string, error) {
	rows, err := c.db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, joinRow(values))
	}
	return out, rows.Err()
}

// MillionRows is a PostgreSQL database with a table "million" of a million
// rows (n, s), for benchmarks that read a real table: PostgreSQL sends the
// rows of a table scan as it reads them, whereas a set-returning function
// such as generate_series is computed whole before the first row.
func MillionRows(t testing.TB) sessionio.Source {
	t.Helper()
	src := Postgres(t)
	Exec(t, src, "CREATE TABLE million AS SELECT g AS n, md5(g::text) AS s FROM generate_series(1, 1000000) AS g")
	return src
}
