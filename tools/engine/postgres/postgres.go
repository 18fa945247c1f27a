package postgres

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// pgCancelGrace is how long, after a statement's context ends, the client
// waits for the server to answer the cancel request before it closes the
// connection. The cancel request is what stops the statement on the
// server, so it gets the time to travel; on a local server it takes
// milliseconds.
const pgCancelGrace = 2 * time.Second

// pgMaxIdle is the number of idle connections kept for the next statement.
const pgMaxIdle = 2

// pgIdleCheck is how long a connection may sit idle before it is pinged
// before use, as pgxpool does.
const pgIdleCheck = time.Second

// postgres runs statements on PostgreSQL through pgx. It keeps a few idle
// connections itself, as pgx's pool is a separate module.
type postgres struct {
	cfg  *pgx.ConnConfig
	host string
	port int
	// timeout is StatementTimeout in milliseconds, for statement_timeout.
	timeout int64

	mu     sync.Mutex
	idle   []idleConn
	closed bool
	// reaper closes the connections idle for IdleTimeout.
	reaper *time.Timer
	// hearing is the statement each connection runs now, for its notices.
	hearing map[*pgconn.PgConn]*engine.Collector
}

// idleConn is a connection waiting for its next statement.
type idleConn struct {
	conn  *pgx.Conn
	since time.Time
}

// newPostgres prepares the connection settings of src.
func newPostgres(src sessionio.Source, opts engine.Options) (*postgres, error) {
	if err := engine.ValidateServer(src); err != nil {
		return nil, err
	}
	// pgx needs a config made by ParseConfig. The explicit sslmode keeps
	// PGSSLMODE and the like from applying; every field that matters is
	// set below from src, never pasted into a connection string, so any
	// character of a password works.
	cfg, err := pgx.ParseConfig("sslmode=disable")
	if err != nil {
		return nil, fmt.Errorf("prepare the PostgreSQL settings: %w", err)
	}
	host, port := engine.HostPort(src, 5432)
	cfg.Host, cfg.Port = host, uint16(port)
	cfg.Database, cfg.User, cfg.Password = src.Database, src.Username, src.Password.Reveal()
	cfg.ConnectTimeout = opts.ConnectTimeout
	cfg.RuntimeParams = map[string]string{"application_name": "aiq-rpc"}
	cfg.ValidateConnect, cfg.AfterConnect, cfg.Fallbacks = nil, nil, nil
	if !strings.HasPrefix(host, "/") {
		// libpq's default, sslmode=prefer: TLS when the server offers it,
		// without verifying its certificate, else plain TCP.
		cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true, ServerName: host}
		cfg.Fallbacks = []*pgconn.FallbackConfig{{Host: host, Port: uint16(port)}}
	}
	// By default pgx only closes the socket when a context ends, and the
	// server goes on running the statement; a cancel request stops it.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: pgCancelGrace}
	}
	// The extended protocol runs exactly one statement; no statement cache,
	// as the model's statements rarely repeat.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity = 0, 0
	p := &postgres{cfg: cfg, host: host, port: port, timeout: opts.StatementTimeout.Milliseconds(), hearing: map[*pgconn.PgConn]*engine.Collector{}}
	cfg.OnNotice = p.notice
	return p, nil
}

// notice hands a notice the server sent (RAISE NOTICE, "table does not
// exist, skipping", a WARNING) to the statement running on the connection,
// if any: it comes while the statement runs, on the goroutine that runs it.
func (p *postgres) notice(c *pgconn.PgConn, n *pgconn.Notice) {
	p.mu.Lock()
	out := p.hearing[c]
	p.mu.Unlock()
	if out != nil {
		out.Warn(n.Severity + ": " + n.Message)
	}
}

// listen makes the notices of c go to out until the returned func is
// called.
func (p *postgres) listen(c *pgx.Conn, out *engine.Collector) func() {
	pc := c.PgConn()
	p.mu.Lock()
	p.hearing[pc] = out
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.hearing, pc)
		p.mu.Unlock()
	}
}

// acquire returns an idle connection that still works, or a new one.
func (p *postgres) acquire(ctx context.Context) (*pgx.Conn, error) {
	for {
		ic, ok := p.popIdle()
		if !ok {
			break
		}
		if time.Since(ic.since) < pgIdleCheck || ic.conn.Ping(ctx) == nil {
			return ic.conn, nil
		}
		closeConn(ic.conn)
	}
	c, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		return nil, p.connectError(err)
	}
	c.TypeMap().RegisterType(&pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: numericText{}})
	return c, nil
}

// numericText reads a numeric value that comes as text (the results of
// QueryExecModeExec) as its text, a json.Number, or a string for NaN and
// the infinities, which JSON has no number for: exact, and without the
// big.Int that pgtype.Numeric builds for each value, which a million rows
// of an export would pay for. numericValue's result is the same.
type numericText struct {
	pgtype.NumericCodec
}

func (c numericText) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if format != pgtype.TextFormatCode || src == nil {
		return c.NumericCodec.DecodeValue(m, oid, format, src)
	}
	return engine.JSONNumber(string(src)), nil
}

// popIdle takes the most recently used idle connection.
func (p *postgres) popIdle() (idleConn, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return idleConn{}, false
	}
	ic := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return ic, true
}

// release keeps c for the next statement when reuse is true and c is idle
// and healthy, else closes it.
func (p *postgres) release(c *pgx.Conn, reuse bool) {
	if reuse && !c.IsClosed() && c.PgConn().TxStatus() == 'I' {
		p.mu.Lock()
		if !p.closed && len(p.idle) < pgMaxIdle {
			p.idle = append(p.idle, idleConn{conn: c, since: time.Now()})
			if p.reaper == nil {
				p.reaper = time.AfterFunc(engine.IdleTimeout, p.reapIdle)
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
	closeConn(c)
}

// closeConn closes a connection, even when the statement's context is
// done.
func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), engine.CleanupTimeout)
	defer cancel()
	c.Close(ctx)
}

// connectError explains a failure to connect.
func (p *postgres) connectError(err error) error {
	hint := engine.HintUnreachable
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			hint = engine.HintLogin
		case "3D000", "42501": // invalid_catalog_name, insufficient_privilege
			hint = engine.HintDatabase
		default:
			hint = engine.HintOther
		}
	}
	if pgErr != nil {
		err = pgErr
	} else {
		err = lastAttempt(err, net.JoinHostPort(p.host, strconv.Itoa(p.port)))
	}
	return engine.NewConnectError("PostgreSQL", p.host, p.port, hint, err)
}

// lastAttempt returns the error of pgx's last connection attempt (with
// sslmode=prefer, TLS comes first and plain TCP last), without the user,
// database and address (addr) that pgx puts before it: the message gives
// them.
func lastAttempt(err error, addr string) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || ce.Unwrap() == nil {
		return err
	}
	err = ce.Unwrap()
	if joined, ok := err.(interface{ Unwrap() []error }); ok && len(joined.Unwrap()) > 0 {
		errs := joined.Unwrap()
		err = errs[len(errs)-1]
	}
	// Each attempt's error starts with "host:port (host): ".
	if msg := err.Error(); strings.HasPrefix(msg, addr+" (") {
		if _, cause, ok := strings.Cut(msg, "): "); ok {
			return errors.New(cause)
		}
	}
	return err
}

func (p *postgres) Version(ctx context.Context) (string, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer p.release(c, true)
	// Such as "15.4 (Debian 15.4-1.pgdg120+1)".
	v, _, _ := strings.Cut(c.PgConn().ParameterStatus("server_version"), " ")
	return "PostgreSQL " + v, nil
}

func (p *postgres) Run(ctx context.Context, sql string, write bool, out *engine.Collector) error {
	c, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	reuse := false
	defer func() { p.release(c, reuse) }()
	mode := pgx.ReadOnly
	if write {
		mode = pgx.ReadWrite
	}
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: mode})
	if err != nil {
		return fmt.Errorf("begin the transaction: %w", err)
	}
	// Rolled back unless committed; a rollback also undoes any SET the
	// statement made, so a read leaves the session as it found it.
	defer rollback(tx)
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = "+strconv.FormatInt(p.timeout, 10)); err != nil {
		return fmt.Errorf("set the statement timeout: %w", err)
	}
	var before int64
	if write && out.Limited() {
		// Under an allowance's bound, what it changes in cascade counts.
		if before, err = xactChanges(ctx, tx); err != nil {
			return fmt.Errorf("count the rows the transaction changed: %w", err)
		}
	}
	stop := p.listen(c, out)
	err = pgQuery(ctx, tx, sql, out)
	stop()
	if err != nil {
		return err
	}
	if write {
		if out.Limited() {
			after, err := xactChanges(ctx, tx)
			if err != nil {
				return fmt.Errorf("count the rows the transaction changed: %w", err)
			}
			out.AddChanged(after - before - out.RowCount())
		}
		if err := out.CheckCommit(); err != nil {
			return err
		}
		// The connection goes afterwards, with any session change (SET,
		// temporary tables) the write made.
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	}
	reuse = endRead(ctx, c, tx)
	return nil
}

// endRead rolls a read back and resets the session, as state that
// outlives a rollback (advisory locks, LISTEN, prepared statements) must
// not reach the next statement. It reports whether the connection can
// serve another one.
func endRead(ctx context.Context, c *pgx.Conn, tx pgx.Tx) bool {
	if err := tx.Rollback(ctx); err != nil {
		return false
	}
	_, err := c.Exec(ctx, "DISCARD ALL")
	return err == nil
}

// rollback ends tx if it is still open, even when the statement's context
// is done.
func rollback(tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.Background(), engine.CleanupTimeout)
	defer cancel()
	tx.Rollback(ctx)
}

// pgQuery runs the statement with the extended protocol, which runs one
// statement only, and streams its rows into out.
func pgQuery(ctx context.Context, tx pgx.Tx, sql string, out *engine.Collector) error {
	rows, err := tx.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, out.Args()...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	names := make([]string, len(fields))
	oids := make([]uint32, len(fields))
	text := true
	for i, f := range fields {
		names[i], oids[i] = f.Name, f.DataTypeOID
		text = text && f.Format == pgtype.TextFormatCode
	}
	out.SetColumns(names)
	out.SetConverter(convert) // for a field that comes in binary
	kinds, types := textKinds(tx.Conn().TypeMap(), oids)
	if len(fields) > 0 {
		out.SetColumnTypes(types)
	}
	// QueryExecModeExec has the server send every value as text: its own
	// form (2024-01-02, 31.70, 2024-01-02 13:45:00+00), which is what
	// the result keeps, without a Go value in between.
	cells := make([]engine.TextCell, len(fields))
	for i := range cells {
		cells[i].Kind = kinds[i]
	}
	for rows.Next() {
		var err error
		if text {
			for i, raw := range rows.RawValues() {
				cells[i].Text = raw
			}
			err = out.TextRow(cells)
		} else {
			err = out.Row(rows.Values)
		}
		if err != nil {
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	out.SetAffected(rows.CommandTag().RowsAffected())
	return nil
}

func (p *postgres) Refusal(err error) engine.Refusal {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return engine.RefusedOther
	}
	switch {
	case pgErr.Code == "25006": // read_only_sql_transaction
		return engine.RefusedReadOnly
	case pgErr.Code == "57014" && strings.Contains(pgErr.Message, "statement timeout"):
		return engine.RefusedTimeout
	}
	return engine.RefusedOther
}

func (p *postgres) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.CloseIdle()
	return nil
}

func (p *postgres) CloseIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	if p.reaper != nil {
		p.reaper.Stop()
		p.reaper = nil
	}
	p.mu.Unlock()
	for _, ic := range idle {
		closeConn(ic.conn)
	}
}

// reapIdle closes the connections idle for IdleTimeout, and comes back
// for the others when their time is up.
func (p *postgres) reapIdle() {
	p.mu.Lock()
	var old []idleConn
	keep := p.idle[:0]
	for _, ic := range p.idle {
		if time.Since(ic.since) >= engine.IdleTimeout {
			old = append(old, ic)
		} else {
			keep = append(keep, ic)
		}
	}
	p.idle = keep
	p.reaper = nil
	if len(keep) > 0 {
		p.reaper = time.AfterFunc(engine.IdleTimeout-time.Since(keep[0].since), p.reapIdle)
	}
	p.mu.Unlock()
	for _, ic := range old {
		closeConn(ic.conn)
	}
}

// convert is the Collector's converter of PostgreSQL's values.
func convert(_ int, v any) any { return Value(v) }

// Value converts a value pgx gives into one that encoding/json encodes:
// engine.JSONValue, with a numeric (in an array, say, which the text codec
// of numericText does not reach) as an exact number.
func Value(v any) any { return engine.JSONValueWith(v, numericValue) }

// numericValue returns a PostgreSQL numeric as an exact json.Number (or
// text for NaN and infinities); ok is false for other values.
func numericValue(v any) (any, bool) {
	n, ok := v.(pgtype.Numeric)
	if !ok {
		return nil, false
	}
	val, err := n.Value()
	if s, isText := val.(string); err == nil && isText {
		return engine.JSONNumber(s), true
	}
	return nil, true
}

// Driver opens PostgreSQL sources.
var Driver = engine.Driver{
	Dialect: sqltext.DialectPostgres,
	Open:    func(src sessionio.Source, opts engine.Options) (engine.Engine, error) { return newPostgres(src, opts) },
}

// xactChanges is the rows the transaction has removed, changed and added
// in every table so far, its own rows and those of cascades and rules
// alike: PostgreSQL keeps these counts per transaction.
func xactChanges(ctx context.Context, tx pgx.Tx) (int64, error) {
	var n int64
	err := tx.QueryRow(ctx, `SELECT coalesce(sum(n_tup_del + n_tup_upd + n_tup_ins), 0)::bigint FROM pg_stat_xact_user_tables`).Scan(&n)
	return n, err
}
