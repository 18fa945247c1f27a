package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// MySQL and MariaDB error numbers.
const (
	mysqlReadOnlyTx      = 1792 // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	mysqlTimeout         = 3024 // ER_QUERY_TIMEOUT (max_execution_time)
	mariadbTimeout       = 1969 // ER_STATEMENT_TIMEOUT (max_statement_time)
	mysqlAccessDenied    = 1045 // ER_ACCESS_DENIED_ERROR
	mysqlDBAccessDenied  = 1044 // ER_DBACCESS_DENIED_ERROR
	mysqlBadDB           = 1049 // ER_BAD_DB_ERROR
	mysqlUnknownVariable = 1193 // ER_UNKNOWN_SYSTEM_VARIABLE
)

// mysqlMaxIdleConns is the number of idle connections kept for Version,
// Schema and KILL QUERY; statements run on connections of their own.
const mysqlMaxIdleConns = 2

// mysqlDB runs statements on MySQL, MariaDB and seekdb through
// go-sql-driver/mysql.
type mysqlDB struct {
	db         *sql.DB
	host       string
	port       int
	sourceType string
	timeout    int64         // StatementTimeout in milliseconds
	limit      time.Duration // StatementTimeout

	mu     sync.Mutex
	flavor *Flavor // nil until the first connection tells
}

// Flavor is what the server turned out to be.
type Flavor struct {
	Version string // such as "MariaDB 10.11.6"
	MariaDB bool   // MariaDB, whose statement timeout and catalog differ from MySQL's
}

// newMySQL prepares the connection pool of src; it connects on first use.
func newMySQL(src sessionio.Source, opts engine.Options) (*mysqlDB, error) {
	if err := engine.ValidateServer(src); err != nil {
		return nil, err
	}
	host, port := engine.HostPort(src, 3306)
	// The settings are fields of the driver's Config, never a pasted DSN,
	// so that any character of a password works.
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, strconv.Itoa(port))
	if strings.HasPrefix(host, "/") {
		cfg.Net, cfg.Addr = "unix", host
	}
	cfg.User, cfg.Passwd, cfg.DBName = src.Username, src.Password.Reveal(), src.Database
	cfg.Timeout = opts.ConnectTimeout
	cfg.MultiStatements = false // one statement per call, always
	// An UPDATE counts the rows it matched, not only those whose values
	// changed: "would change N rows" means the rows it touches.
	cfg.ClientFoundRows = true
	// DATE, DATETIME, TIMESTAMP and TIME come as the server's text
	// (2024-01-02, 2024-01-02 13:45:00), which the result keeps.
	cfg.ParseTime = false
	// TLS when the server offers it, without verification, as the mysql
	// client's default does; MySQL 8's caching_sha2_password needs it.
	cfg.TLSConfig = "preferred"
	// Errors reach the caller; the driver's own log lines would only
	// clutter the editor's stderr.
	cfg.Logger = &mysql.NopLogger{}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("prepare the MySQL settings: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxIdleConns(mysqlMaxIdleConns)
	db.SetConnMaxIdleTime(engine.IdleTimeout)
	return &mysqlDB{db: db, host: host, port: port, sourceType: src.Type, timeout: opts.StatementTimeout.Milliseconds(), limit: opts.StatementTimeout}, nil
}

// conn takes a connection from the pool.
func (m *mysqlDB) conn(ctx context.Context) (*sql.Conn, error) {
	c, err := m.db.Conn(ctx)
	if err != nil {
		return nil, m.connectError(err)
	}
	return c, nil
}

// connectError explains a failure to connect.
func (m *mysqlDB) connectError(err error) error {
	hint := engine.HintUnreachable
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) {
		switch myErr.Number {
		case mysqlAccessDenied:
			hint = engine.HintLogin
		case mysqlDBAccessDenied, mysqlBadDB:
			hint = engine.HintDatabase
		default:
			hint = engine.HintOther
		}
	}
	return engine.NewConnectError(m.product(), m.host, m.port, hint, err)
}

// product names the server for messages, before its version is known.
func (m *mysqlDB) product() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.flavor != nil && m.flavor.MariaDB:
		return "MariaDB"
	case m.sourceType == sessionio.TypeSeekDB:
		return "seekdb"
	}
	return "MySQL"
}

// getFlavor returns the server's flavour, asking c the first time.
func (m *mysqlDB) getFlavor(ctx context.Context, c *sql.Conn) (*Flavor, error) {
	m.mu.Lock()
	f := m.flavor
	m.mu.Unlock()
	if f != nil {
		return f, nil
	}
	var v string
	if err := c.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return nil, fmt.Errorf("read the server version: %w", err)
	}
	f = ParseVersion(v, m.sourceType)
	m.mu.Lock()
	m.flavor = f
	m.mu.Unlock()
	return f, nil
}

// ParseVersion reads VERSION(), such as "10.11.6-MariaDB-0+deb12u1"
// or "8.0.36".
func ParseVersion(v, sourceType string) *Flavor {
	number, _, _ := strings.Cut(v, "-")
	switch {
	case strings.Contains(strings.ToLower(v), "mariadb"):
		return &Flavor{Version: "MariaDB " + number, MariaDB: true}
	case sourceType == sessionio.TypeSeekDB:
		return &Flavor{Version: "seekdb " + v}
	}
	return &Flavor{Version: "MySQL " + number}
}

func (m *mysqlDB) Version(ctx context.Context) (string, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	f, err := m.getFlavor(ctx, c)
	if err != nil {
		return "", err
	}
	return f.Version, nil
}

// Run runs the statement on a connection of its own, which is closed
// afterwards rather than returned to the pool: MySQL has session state
// that no rollback undoes (LOCK TABLES, GET_LOCK, HANDLER, user
// variables), and the driver cannot reset a connection, so nothing a
// statement leaves in its session may reach the next one.
func (m *mysqlDB) Run(ctx context.Context, query string, write bool, out *engine.Collector) error {
	start := time.Now()
	c, err := m.conn(ctx)
	if err != nil {
		return err
	}
	defer engine.ReleaseSQLConn(c, false)
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return fmt.Errorf("read the connection id: %w", err)
	}
	if err := m.prepareSession(ctx, c, write); err != nil {
		return err
	}
	// The driver only drops the connection when ctx ends; KILL QUERY from
	// another connection stops the statement on the server. The kill is
	// over before run returns, so that it cannot hit a later statement.
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		m.kill(id)
	})
	defer func() {
		if !stop() {
			<-killed
		}
	}()
	err = m.transaction(ctx, c, query, write, out)
	if err == nil && time.Since(start) >= m.limit {
		// MariaDB's max_statement_time stops some functions (BENCHMARK)
		// without an error: they return 0 as if they had finished. A
		// statement that ran the whole limit was stopped by it.
		err = engine.ErrStatementTimeout
	}
	return err
}

// prepareSession sets the access mode and the statement timeout. The
// session's default access mode matters as much as the transaction's: a
// DDL statement commits the transaction it is in and runs in a new one of
// the session's default mode.
func (m *mysqlDB) prepareSession(ctx context.Context, c *sql.Conn, write bool) error {
	mode := "READ ONLY"
	if write {
		mode = "READ WRITE"
	}
	if _, err := c.ExecContext(ctx, "SET SESSION TRANSACTION "+mode); err != nil {
		return fmt.Errorf("set the transaction mode: %w", err)
	}
	f, err := m.getFlavor(ctx, c)
	if err != nil {
		return err
	}
	set := "SET SESSION max_execution_time = " + strconv.FormatInt(m.timeout, 10)
	if f.MariaDB {
		set = "SET SESSION max_statement_time = " + strconv.FormatFloat(float64(m.timeout)/1000, 'f', 3, 64)
	}
	_, err = c.ExecContext(ctx, set)
	var myErr *mysql.MySQLError
	if errors.As(err, &myErr) && myErr.Number == mysqlUnknownVariable {
		// A server without the variable (some seekdb versions) still has
		// the client's deadline and KILL QUERY.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("set the statement timeout: %w", err)
	}
	return nil
}

// transaction runs the statement in a transaction and streams its rows.
func (m *mysqlDB) transaction(ctx context.Context, c *sql.Conn, query string, write bool, out *engine.Collector) error {
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: !write})
	if err != nil {
		return fmt.Errorf("begin the transaction: %w", err)
	}
	defer tx.Rollback()
	counted := func() error { return nil }
	if write {
		// Under an allowance's bound, what it changes in cascade counts.
		if counted, err = out.CountAround(ctx, tx); err != nil {
			return fmt.Errorf("count the rows of the tables it may change: %w", err)
		}
	}
	if err := engine.SQLQuery(ctx, tx, query, out, mysqlConverter); err != nil {
		return err
	}
	if write && !out.HasColumns() {
		// Before SHOW WARNINGS, after which ROW_COUNT() is -1; a SELECT
		// that reads no table keeps the statement's warnings.
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT ROW_COUNT()").Scan(&n); err == nil {
			out.SetAffected(n)
		}
	}
	if err := mysqlWarnings(ctx, tx, out); err != nil {
		return err
	}
	if !write {
		return tx.Rollback()
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

// mysqlWarnings records the warnings and notes of the statement just run:
// a recursive CTE cut at max_recursive_iterations, a value truncated or
// converted, which the result alone does not show.
func mysqlWarnings(ctx context.Context, tx *sql.Tx, out *engine.Collector) error {
	rows, err := tx.QueryContext(ctx, fmt.Sprintf("SHOW WARNINGS LIMIT %d", engine.MaxWarnings+1))
	if err != nil {
		return fmt.Errorf("read the warnings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int64
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return fmt.Errorf("read the warnings: %w", err)
		}
		out.Warn(fmt.Sprintf("%s %d: %s", level, code, msg))
	}
	return rows.Err()
}

// kill stops the statement running on the connection of that id.
func (m *mysqlDB) kill(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), engine.CleanupTimeout)
	defer cancel()
	// Best effort: when it fails, the connection the driver closed still
	// ends the statement once the server notices.
	m.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
}

func (m *mysqlDB) Refusal(err error) engine.Refusal {
	var myErr *mysql.MySQLError
	if !errors.As(err, &myErr) {
		return engine.RefusedOther
	}
	switch myErr.Number {
	case mysqlReadOnlyTx:
		return engine.RefusedReadOnly
	case mysqlTimeout, mariadbTimeout:
		return engine.RefusedTimeout
	}
	return engine.RefusedOther
}

func (m *mysqlDB) Close() error { return m.db.Close() }

func (m *mysqlDB) CloseIdle() { engine.CloseIdleSQL(m.db, mysqlMaxIdleConns) }

// mysqlConverter returns the converter of the values of a MySQL result.
func mysqlConverter(types []*sql.ColumnType) func(i int, v any) any {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.DatabaseTypeName()
	}
	return func(i int, v any) any { return Value(names[i], v) }
}

// Value converts a value of a column of that type: the driver gives
// the text of most types as bytes.
func Value(typeName string, v any) any {
	b, ok := v.([]byte)
	if !ok {
		return engine.JSONValue(v)
	}
	switch typeName {
	case "DECIMAL", "NEWDECIMAL":
		return engine.JSONNumber(string(b))
	case "BIT":
		var n uint64
		for _, x := range b {
			n = n<<8 | uint64(x)
		}
		return n
	case "JSON":
		if json.Valid(b) {
			return json.RawMessage(b)
		}
	}
	return engine.JSONBytes(b)
}

// Driver opens MySQL, MariaDB and seekdb sources.
var Driver = engine.Driver{
	Dialect: sqltext.DialectMySQL,
	Open:    func(src sessionio.Source, opts engine.Options) (engine.Engine, error) { return newMySQL(src, opts) },
}
