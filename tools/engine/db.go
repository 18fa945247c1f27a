package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// Options bounds the work of a DB. The zero value gives the defaults.
type Options struct {
	// StatementTimeout stops a statement that runs longer; 0 means 30s.
	// PostgreSQL enforces it with statement_timeout, MySQL with
	// max_execution_time, MariaDB with max_statement_time, SQLite through
	// the context; a client-side deadline a little later backs them up.
	StatementTimeout time.Duration
	// ConnectTimeout bounds opening a connection; 0 means 10s.
	ConnectTimeout time.Duration
	// MaxRows is the number of rows kept for the editor; 0 means 500.
	MaxRows int
	// ModelBytes bounds the JSON of the rows the model sees; 0 means 4096.
	ModelBytes int
}

// The defaults of Options.
const (
	defaultStatementTimeout = 30 * time.Second
	defaultConnectTimeout   = 10 * time.Second
	DefaultMaxRows          = 500
	defaultModelBytes       = 4096
)

// WithDefaults returns o with its zero fields set to the defaults.
func (o Options) WithDefaults() Options {
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = defaultStatementTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = defaultConnectTimeout
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.ModelBytes <= 0 {
		o.ModelBytes = defaultModelBytes
	}
	return o
}

// serverGrace is how long after StatementTimeout the client gives up on a
// server that did not enforce it (a MySQL write, a seekdb without
// max_execution_time, a server that does not answer) and cancels the
// statement itself.
const serverGrace = 2 * time.Second

// CleanupTimeout bounds the work done after a statement ends (rollback,
// KILL QUERY), which runs even when the caller's context is done.
const CleanupTimeout = 5 * time.Second

// DialectOf returns the SQL dialect of a source type: seekdb and mysql
// (which covers MariaDB) are DialectMySQL. An unknown type gives "".
func DialectOf(sourceType string) sqltext.Dialect {
	switch strings.ToLower(sourceType) {
	case sessionio.TypePostgreSQL:
		return sqltext.DialectPostgres
	case sessionio.TypeMySQL, sessionio.TypeSeekDB:
		return sqltext.DialectMySQL
	case sessionio.TypeSQLite:
		return sqltext.DialectSQLite
	}
	return ""
}

// DB is one data source, ready to run statements. Its methods are safe for
// concurrent use. Connections are opened when first needed, so a DB exists
// while its server is down.
type DB struct {
	src     sessionio.Source
	dialect sqltext.Dialect
	Opts    Options
	eng     Engine
	redact  redactor
	// Grace is serverGrace for a server, 0 for SQLite, which has no
	// timeout of its own; tests lengthen it to tell the two apart.
	Grace time.Duration

	mu         sync.Mutex
	schema     *Schema
	schemaGen  int // counts RefreshSchema calls, to drop a fetch that one overtook
	versionStr string

	valuesMu sync.Mutex  // held while the masked columns' values are read
	values   scrubValues // guarded by valuesMu
}

// Open returns the DB of src, opened by the one of drivers whose dialect
// is src's. It validates the configuration but does not connect: a server
// that is down fails the statements, not Open.
func Open(ctx context.Context, src sessionio.Source, opts Options, drivers []Driver) (*DB, error) {
	opts = opts.WithDefaults()
	db := &DB{src: src, dialect: DialectOf(src.Type), Opts: opts, redact: NewRedactor(src.Password.Reveal())}
	var drv *Driver
	for i := range drivers {
		if db.dialect != "" && drivers[i].Dialect == db.dialect {
			drv = &drivers[i]
			break
		}
	}
	var err error
	if drv == nil {
		err = fmt.Errorf("unknown type %q; want one of mysql, postgresql, seekdb or sqlite", src.Type)
	} else {
		if !drv.ClientTimeout {
			db.Grace = serverGrace // the server's own timeout should fire first
		}
		db.eng, err = drv.Open(src, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("open source %q: %s", src.Name, db.redact.Clean(err.Error()))
	}
	return db, nil
}

// Format prints the DB as its source's name and type, under every verb.
// Without it, fmt would print the unexported fields, password included:
// fmt cannot call a Secret's methods through them.
func (db *DB) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "tools.DB(%s source %q)", db.src.Type, db.src.Name)
}

// Close closes the DB's connections. Statements running on them fail.
func (db *DB) Close() error {
	if err := db.eng.Close(); err != nil {
		return db.cleanError("close source "+strconv.Quote(db.src.Name), err)
	}
	return nil
}

// CloseIdle closes the connections that no statement uses, as when the
// last session on the source ended; the next statement opens one again.
func (db *DB) CloseIdle() { db.eng.CloseIdle() }

// Dialect returns the SQL dialect of the source.
func (db *DB) Dialect() sqltext.Dialect { return db.dialect }

// Source returns the source the DB was opened on.
func (db *DB) Source() sessionio.Source { return db.src }

// Version returns the server's product and version, such as
// "PostgreSQL 15.4", "MariaDB 10.11.6" or "SQLite 3.46.0". The first
// answer is kept.
func (db *DB) Version(ctx context.Context) (string, error) {
	db.mu.Lock()
	v := db.versionStr
	db.mu.Unlock()
	if v != "" {
		return v, nil
	}
	v, err := db.eng.Version(ctx)
	if err != nil {
		return "", db.cleanError("read the version of "+strconv.Quote(db.src.Name), err)
	}
	db.mu.Lock()
	db.versionStr = v
	db.mu.Unlock()
	return v, nil
}

// Schema returns the tables and columns the model may query. It is read
// once and cached until RefreshSchema.
func (db *DB) Schema(ctx context.Context) (*Schema, error) {
	db.mu.Lock()
	s, gen := db.schema, db.schemaGen
	db.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := db.eng.Schema(ctx)
	if err != nil {
		return nil, db.cleanError("read the schema of "+strconv.Quote(db.src.Name), err)
	}
	db.mu.Lock()
	if db.schemaGen == gen {
		db.schema = s
	}
	db.mu.Unlock()
	return s, nil
}

// RefreshSchema drops the cached schema; the next Schema reads it again.
func (db *DB) RefreshSchema() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.schema = nil
	db.schemaGen++
}

// Run runs one SQL statement and reports its outcome; a failure is a
// result with Status "error", never a panic or a Go error.
//
// With write false, the statement must be one that Classify finds
// read-only: anything else is "rejected" (or "error" when it cannot be
// classified) without running. It then runs inside the engine's read-only
// transaction, which catches a write the classifier missed. With write
// true, the caller has had the statement confirmed: it runs in an ordinary
// transaction, committed on success and rolled back on error or
// cancellation.
//
// A cancelled ctx stops the statement on the server, not only in the
// client, and gives Status "cancelled".
func (db *DB) Run(ctx context.Context, sql string, write bool) *StatementResult {
	if !write {
		v, err := sqltext.Classify(sql, db.dialect)
		if err != nil {
			return db.Failed(sql, StatusError, "the statement was not run: "+err.Error())
		}
		if v.Class == sqltext.Write {
			return db.Failed(sql, StatusRejected, NeedsConfirmation(v))
		}
	}
	return db.Execute(ctx, sql, write)
}

// NeedsConfirmation explains to the model why a statement did not run:
// the classifier's reason, which is true of a write and of a read that
// reaches outside the database alike.
func NeedsConfirmation(v sqltext.Verdict) string {
	reason := strings.TrimSpace(v.Reason)
	if reason == "" {
		reason = "this statement (" + v.Kind + ") can change the database."
	}
	return "not run: it needs the user's confirmation: " + reason
}

// Failed returns a result that did not run.
func (db *DB) Failed(sql, status, msg string) *StatementResult {
	return &StatementResult{SQL: sql, Status: status, Error: msg, ModelBytes: db.Opts.ModelBytes}
}

// Execute runs sql without classifying it: the read-only transaction
// (write false) is then the only guard. Run classifies first; tests call
// execute to check that guard alone.
func (db *DB) Execute(ctx context.Context, sql string, write bool) *StatementResult {
	res := &StatementResult{SQL: sql, ModelBytes: db.Opts.ModelBytes}
	if ctx.Err() != nil {
		// Ended before it started, as when the caller went away while the
		// user confirmed: a write must not begin on a context a driver
		// may not have seen end yet.
		res.Status = StatusCancelled
		res.Error = "cancelled before it started; the statement did not run"
		return res
	}
	limit := db.Opts.StatementTimeout + db.Grace
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out := newCollector(res, db.Opts.MaxRows)
	out.page = firstPage(ctx)
	out.sink = rowSink(ctx)
	if write {
		if out.limit = rowLimit(ctx); out.limit >= 0 {
			db.countAround(ctx, out, sql)
		}
	}
	query, args := boundFor(ctx, sql)
	out.args = args
	err := db.eng.Run(runCtx, query, write, out)
	if err == nil {
		res.Status = StatusSuccess
		return res
	}
	res.RowCount, res.Columns, res.Rows, res.Truncated = 0, nil, nil, false
	db.explain(ctx, runCtx, res, err, write)
	return res
}

// pageKey is the context key of WithFirstPage.
type pageKey struct{}

// WithFirstPage returns a copy of ctx under which a statement that a DB
// runs reports its first page of rows to page while it still runs: once,
// as soon as MaxRows rows are read and another follows, so that a user
// sees rows of a long statement before it ends. page gets a result with
// Status "running", RowCount the rows read so far, and the Rows that the
// final result keeps; it must not change them. A statement that ends
// before its page is full reports nothing: its result comes at once
// anyway. page runs on the goroutine that reads the rows, which waits for
// it. As net/http/httptrace does for a request's events, the hook rides
// on the context, so that it reaches the DB through the callers between,
// such as Set.Run, unchanged.
func WithFirstPage(ctx context.Context, page func(*StatementResult)) context.Context {
	return context.WithValue(ctx, pageKey{}, page)
}

func firstPage(ctx context.Context) func(*StatementResult) {
	page, _ := ctx.Value(pageKey{}).(func(*StatementResult))
	return page
}

// ErrStatementTimeout is what an engine's Run returns for a statement
// that the server's statement timeout ended although the driver reported
// success.
var ErrStatementTimeout = errors.New("the statement timeout stopped the statement")

// explain sets the status and message of a run that failed.
func (db *DB) explain(ctx, runCtx context.Context, res *StatementResult, err error, write bool) {
	res.Status = StatusError
	why := db.eng.Refusal(err)
	switch {
	case ctx.Err() != nil:
		res.Status = StatusCancelled
		res.Error = "cancelled: the statement was stopped before it finished"
		if write {
			res.Error += "; its changes were rolled back"
		}
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) || why == RefusedTimeout || errors.Is(err, ErrStatementTimeout):
		// Stopped by our deadline, not by a failure of its own: cancelled,
		// on every engine, with the reason.
		res.Status = StatusCancelled
		res.Error = fmt.Sprintf("took longer than the statement timeout (%s), so it was stopped", db.Opts.StatementTimeout)
		if write {
			res.Error += "; its changes were rolled back"
		}
	case overLimit(err) > 0:
		res.Status = StatusRejected
		res.OverLimit = overLimit(err)
		res.Error = err.Error()
	case why == RefusedReadOnly && !write:
		res.Status = StatusRejected
		res.ReadOnlyRefused = true
		res.Error = "not run: the database refused this statement in read-only mode, so it changes " +
			"the database and needs the user's confirmation (" + db.redact.Clean(err.Error()) + ")"
	default:
		res.Error = db.redact.Clean(err.Error())
	}
}

// cleanError returns err with what was being done, its text cleaned of
// the password. It still matches what err matched with errors.Is (a
// context's end, say), but does not unwrap, so that no caller can reach
// the uncleaned text.
func (db *DB) cleanError(doing string, err error) error {
	return &cleanedError{msg: doing + ": " + db.redact.Clean(err.Error()), err: err}
}

// cleanedError is an error whose text is cleaned of credentials.
type cleanedError struct {
	msg string
	err error
}

func (e *cleanedError) Error() string { return e.msg }

// Is reports whether the original error matches target.
func (e *cleanedError) Is(target error) bool { return errors.Is(e.err, target) }

// redactor removes a password from texts, such as the errors of drivers,
// some of which echo the connection's settings.
type redactor struct {
	forms []string
}

// minRedacted is the shortest password removed from texts: a shorter one
// would garble every message and protects nothing.
const minRedacted = 3

// NewRedactor returns a redactor of password, in the forms it may take in a
// connection string or URL.
func NewRedactor(password string) redactor {
	if len(password) < minRedacted {
		return redactor{}
	}
	forms := []string{password, url.QueryEscape(password), url.PathEscape(password),
		strings.TrimPrefix(url.UserPassword("", password).String(), ":")}
	// Longest first, so that no form breaks up a longer one.
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	return redactor{forms: forms}
}

// Clean returns s with every form of the password replaced.
func (r redactor) Clean(s string) string {
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, f, "[redacted]")
	}
	return s
}

// HostPort returns the address of a server source, with the engine's
// default host and port for those left out.
func HostPort(src sessionio.Source, defaultPort int) (string, int) {
	host := src.Host
	if host == "" {
		host = "localhost"
	}
	port := src.Port
	if port == 0 {
		port = defaultPort
	}
	return host, port
}

// ValidateServer checks the fields of a server source that a driver cannot
// check before it connects.
func ValidateServer(src sessionio.Source) error {
	if src.Port < 0 || src.Port > 65535 {
		return fmt.Errorf("port %d is not a port number from 1 to 65535", src.Port)
	}
	if strings.ContainsAny(src.Host, " \t\r\n") {
		return fmt.Errorf("host %q holds blanks", src.Host)
	}
	return nil
}

// connectError is a failure to reach the server or to log in.
type connectError struct {
	engine, addr, hint string
	err                error
}

// NewConnectError describes a failure to connect to the server at host:port.
func NewConnectError(engine, host string, port int, hint string, err error) *connectError {
	addr := host
	if !strings.HasPrefix(host, "/") {
		addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	return &connectError{engine: engine, addr: addr, hint: hint, err: err}
}

func (e *connectError) Error() string {
	return fmt.Sprintf("cannot connect to %s at %s: %s (%v)", e.engine, e.addr, e.hint, e.err)
}

func (e *connectError) Unwrap() error { return e.err }

// Hints for connection failures, which say what to do.
const (
	HintUnreachable = "the server is not reachable; check that it is running and that the source's host and port in sources.yaml are right"
	HintLogin       = "the server refused the login; check the source's username and password in sources.yaml"
	HintDatabase    = "the database does not exist or the user may not use it; check the source's database in sources.yaml"
	HintOther       = "check the source's settings in sources.yaml and the server's log"
)
