package dbtest

import (
	"context"
	"fmt"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/jackc/pgx/v5"
)

// postgres is this test binary's PostgreSQL server.
var postgres = &server{name: "PostgreSQL", start: startPostgres}

// Postgres returns a source on a new database of the test PostgreSQL
// server, which it starts on first use. The database is dropped when t
// ends.
func Postgres(t testing.TB) sessionio.Source {
	t.Helper()
	return postgres.database(t)
}

// pgBinary finds a PostgreSQL server program such as initdb.
func pgBinary(name string) (string, error) {
	path, err := findBinary("/usr/lib/postgresql/*/bin/"+name, name)
	if err != nil {
		return "", missingError(fmt.Sprintf("PostgreSQL's %s is not installed (looked in /usr/lib/postgresql/*/bin and $PATH)", name))
	}
	return path, nil
}

// startPostgres creates a cluster in a new folder and starts its server.
func startPostgres(ctx context.Context) (*instance, error) {
	initdb, err := pgBinary("initdb")
	if err != nil {
		return nil, err
	}
	serverBin, err := pgBinary("postgres")
	if err != nil {
		return nil, err
	}
	// initdb and the server refuse to run as root, so root runs them as
	// the postgres user that Debian's package creates.
	attr, uid, gid, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	dir, err := makeDir("pg", uid, gid)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := runTool(ctx, attr, initdb, "-D", data, "-U", "postgres", "--auth-local=trust",
		"--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(serverBin, "-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=100")
	cmd.SysProcAttr = attr
	// SIGINT is the fast shutdown; SIGQUIT, the immediate one, is for
	// when the test process is gone.
	p := &process{name: "postgres", cmd: cmd, dir: dir, stopSignal: syscall.SIGINT}
	if err := startProcess(p, syscall.SIGQUIT); err != nil {
		return nil, err
	}
	track(p)
	admin := pgAdminConfig(dir, port)
	if err := p.waitReady(ctx, func(ctx context.Context) error {
		c, err := connectPostgres(ctx, admin)
		if err == nil {
			c.close()
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := pgCreateUser(ctx, admin); err != nil {
		return nil, err
	}
	return pgInstance(admin, port), nil
}

// postgresCredential returns how to run PostgreSQL's programs: as the
// postgres user when root, else as the current user (uid -1).
func postgresCredential() (*syscall.SysProcAttr, int, int, error) {
	if !isRoot() {
		return nil, -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, missingError("there is no postgres user to run PostgreSQL as (running as root): " + err.Error())
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, 0, 0, fmt.Errorf("the postgres user has ids %q and %q", u.Uid, u.Gid)
	}
	attr := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return attr, uid, gid, nil
}

// pgAdminConfig is the superuser's connection over the server's Unix
// socket, which trusts local users.
func pgAdminConfig(socketDir string, port int) *pgx.ConnConfig {
	cfg, _ := pgx.ParseConfig("sslmode=disable")
	cfg.Host = socketDir
	cfg.Port = uint16(port)
	cfg.User = "postgres"
	cfg.Database = "postgres"
	cfg.Fallbacks = nil
	return cfg
}

// pgSourceConfig is the connection to a source's database.
func pgSourceConfig(src sessionio.Source) *pgx.ConnConfig {
	cfg, _ := pgx.ParseConfig("sslmode=disable")
	cfg.Host = src.Host
	cfg.Port = uint16(src.Port)
	cfg.User = src.Username
	cfg.Password = src.Password.Reveal()
	cfg.Database = src.Database
	cfg.Fallbacks = nil
	return cfg
}

// pgCreateUser creates User and Superuser, who log in over TCP with
// Password.
func pgCreateUser(ctx context.Context, admin *pgx.ConnConfig) error {
	c, err := connectPostgres(ctx, admin)
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD %s", User, quote(Password))); err != nil {
		return err
	}
	return c.exec(ctx, fmt.Sprintf("CREATE ROLE %s SUPERUSER LOGIN PASSWORD %s", Superuser, quote(Password)))
}

// pgInstance makes and drops the databases of the server.
func pgInstance(admin *pgx.ConnConfig, port int) *instance {
	return &instance{
		createDB: func(ctx context.Context, name string) (sessionio.Source, error) {
			src := sessionio.Source{
				Name: "postgres-test", Type: sessionio.TypePostgreSQL, Host: "127.0.0.1", Port: port,
				Database: name, Username: User, Password: sessionio.Secret(Password),
			}
			return src, pgAdminExec(ctx, admin, "CREATE DATABASE "+name+" OWNER "+User)
		},
		dropDB: func(ctx context.Context, name string) error {
			return pgAdminExec(ctx, admin, "DROP DATABASE "+name+" WITH (FORCE)")
		},
	}
}

// pgAdminExec runs one statement as the superuser.
func pgAdminExec(ctx context.Context, admin *pgx.ConnConfig, query string) error {
	c, err := connectPostgres(ctx, admin)
	if err != nil {
		return err
	}
	defer c.close()
	return c.exec(ctx, query)
}

// pgConn is a conn to PostgreSQL.
type pgConn struct{ c *pgx.Conn }

// connectPostgres opens a pgConn.
func connectPostgres(ctx context.Context, cfg *pgx.ConnConfig) (pgConn, error) {
	c, err := pgx.ConnectConfig(ctx, cfg)
	return pgConn{c}, err
}

func (c pgConn) exec(ctx context.Context, query string) error {
	_, err := c.c.Exec(ctx, query)
	return err
}

func (c pgConn) queryInt(ctx context.Context, query string) (int64, error) {
	var n int64
	err := c.c.QueryRow(ctx, query).Scan(&n)
	return n, err
}

func (c pgConn) queryStrings(ctx context.Context, query string) ([]string, error) {
	rows, err := c.c.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, joinRow(values))
	}
	return out, rows.Err()
}

func (c pgConn) close() { c.c.Close(context.Background()) }

// quote returns s as an SQL string literal. The helpers quote only their
// own constants, which hold no backslash (MariaDB would read it as an
// escape).
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
