package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/go-sql-driver/mysql"
)

// mariadb is this test binary's MariaDB server.
var mariadb = &server{name: "MariaDB", start: startMariaDB}

// MariaDB returns a source (type mysql) on a new database of the test
// MariaDB server, which it starts on first use. The database is dropped
// when t ends.
func MariaDB(t testing.TB) sessionio.Source {
	t.Helper()
	return mariadb.database(t)
}

// startMariaDB creates a data folder and starts its server.
func startMariaDB(ctx context.Context) (*instance, error) {
	install, err := findBinary("mariadb-install-db", "mysql_install_db")
	if err != nil {
		return nil, missingError("MariaDB's mariadb-install-db is not installed")
	}
	serverBin, err := findBinary("mariadbd", "/usr/sbin/mariadbd")
	if err != nil {
		return nil, missingError("MariaDB's mariadbd is not installed")
	}
	dir, err := makeDir("mariadb", -1, -1)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// A temporary folder of its own: instances started at once by test
	// binaries running in parallel otherwise share /tmp, where one removed
	// the other's temporary tables ("Could not remove temporary table ...
	// Unknown table 'mysql.tmp_user_sys'" from mariadb-install-db).
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	args := []string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}
	// mariadbd refuses to run as root unless told to.
	if isRoot() {
		args = append(args, "--user=root")
	}
	if err := runTool(ctx, nil, install, args...); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	socket := filepath.Join(dir, "mariadb.sock")
	args = []string{"--no-defaults", "--datadir=" + data, "--tmpdir=" + tmp, "--socket=" + socket, "--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1", "--pid-file=" + filepath.Join(dir, "mariadb.pid"), "--skip-name-resolve",
		"--skip-log-bin", "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0"}
	if isRoot() {
		args = append(args, "--user=root")
	}
	p := &process{name: "mariadbd", cmd: exec.Command(serverBin, args...), dir: dir, stopSignal: syscall.SIGTERM}
	if err := startProcess(p, syscall.SIGKILL); err != nil {
		return nil, err
	}
	track(p)
	admin := mysql.NewConfig()
	admin.Net, admin.Addr, admin.User = "unix", socket, "root"
	admin.Timeout = 5 * time.Second
	admin.Logger = &mysql.NopLogger{} // the polling's refused connections are expected
	if err := p.waitReady(ctx, func(ctx context.Context) error {
		c, err := connectMySQL(ctx, admin)
		if err == nil {
			c.close()
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := mysqlAdminExec(ctx, admin,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY %s", User, quote(Password)),
		fmt.Sprintf("CREATE USER '%s'@'localhost' IDENTIFIED BY %s", User, quote(Password)),
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY %s", Superuser, quote(Password)),
		fmt.Sprintf("CREATE USER '%s'@'localhost' IDENTIFIED BY %s", Superuser, quote(Password)),
		fmt.Sprintf("GRANT ALL ON *.* TO '%s'@'%%', '%s'@'localhost' WITH GRANT OPTION", Superuser, Superuser),
	); err != nil {
		return nil, err
	}
	return mysqlInstance(admin, port), nil
}

// mysqlSourceConfig is the connection to a source's database.
func mysqlSourceConfig(src sessionio.Source) *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(src.Host, strconv.Itoa(src.Port))
	cfg.User = src.Username
	cfg.Passwd = src.Password.Reveal()
	cfg.DBName = src.Database
	cfg.Timeout = 5 * time.Second
	cfg.Logger = &mysql.NopLogger{}
	return cfg
}

// mysqlInstance makes and drops the databases of the server.
func mysqlInstance(admin *mysql.Config, port int) *instance {
	return &instance{
		createDB: func(ctx context.Context, name string) (sessionio.Source, error) {
			src := sessionio.Source{
				Name: "mariadb-test", Type: sessionio.TypeMySQL, Host: "127.0.0.1", Port: port,
				Database: name, Username: User, Password: sessionio.Secret(Password),
			}
			return src, mysqlAdminExec(ctx, admin,
				"CREATE DATABASE "+name,
				fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%', '%s'@'localhost'", name, User, User))
		},
		dropDB: func(ctx context.Context, name string) error {
			return mysqlAdminExec(ctx, admin, "DROP DATABASE "+name)
		},
	}
}

// mysqlAdminExec runs statements as root.
func mysqlAdminExec(ctx context.Context, admin *mysql.Config, stmts ...string) error {
	c, err := connectMySQL(ctx, admin)
	if err != nil {
		return err
	}
	defer c.close()
	for _, s := range stmts {
		if err := c.exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// connectMySQL opens a conn to MySQL or MariaDB and checks that it works.
func connectMySQL(ctx context.Context, cfg *mysql.Config) (sqlConn, error) {
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return sqlConn{}, err
	}
	db := sql.OpenDB(connector)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return sqlConn{}, err
	}
	return sqlConn{db}, nil
}
