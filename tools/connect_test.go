package tools

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// wrongPassword is a password the servers refuse, as full of URL
// characters as dbtest.Password.
const wrongPassword = "wr@ng:p/ss?#word"

// secretForms returns the ways a password could show in an error: as is,
// and escaped for a URL's query, path or user part.
func secretForms(password string) []string {
	return []string{password, url.QueryEscape(password), url.PathEscape(password),
		url.UserPassword("u", password).String()}
}

// checkFailure runs a statement, Version and Schema on src, which cannot
// be reached or logged into: each must fail with a message that holds
// every want and no form of any of the passwords.
func checkFailure(t *testing.T, src sessionio.Source, want ...string) {
	t.Helper()
	ctx := context.Background()
	db := openDB(t, src, engine.Options{})
	res := db.Run(ctx, "SELECT 1", false)
	if res.Status != engine.StatusError {
		t.Fatalf("status %q, want error", res.Status)
	}
	_, verErr := db.Version(ctx)
	_, schemaErr := db.Schema(ctx)
	if verErr == nil || schemaErr == nil {
		t.Fatalf("Version and Schema errors = %v, %v; want both", verErr, schemaErr)
	}
	for _, msg := range []string{res.Error, verErr.Error(), schemaErr.Error()} {
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
		for _, p := range []string{dbtest.Password, wrongPassword} {
			for _, form := range secretForms(p) {
				if strings.Contains(msg, form) {
					t.Errorf("error %q shows the password as %q", msg, form)
				}
			}
		}
	}
	t.Logf("the error: %s", res.Error)
}

// serverEngines are the engines with a server to fail to reach.
var serverEngines = []struct {
	name   string
	source func(testing.TB) sessionio.Source
}{
	{"postgres", dbtest.Postgres},
	{"mariadb", dbtest.MariaDB},
}

func TestConnectFailures(t *testing.T) {
	for _, e := range serverEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			good := e.source(t)
			t.Run("down", func(t *testing.T) {
				src := good
				src.Port = closedPort(t)
				checkFailure(t, src, net.JoinHostPort(src.Host, strconv.Itoa(src.Port)), "not reachable")
			})
			t.Run("wrong password", func(t *testing.T) {
				src := good
				src.Password = wrongPassword
				checkFailure(t, src, net.JoinHostPort(src.Host, strconv.Itoa(src.Port)), "refused the login")
			})
			t.Run("no such database", func(t *testing.T) {
				src := good
				src.Database = "no_such_db"
				checkFailure(t, src, "database")
			})
		})
	}
	t.Run("sqlite missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "missing.sqlite")
		src := sessionio.Source{Name: "gone", Type: sessionio.TypeSQLite, Database: path}
		checkFailure(t, src, path, "does not exist")
	})
}

// closedPort returns a port of 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func TestOpenValidates(t *testing.T) {
	for _, c := range []struct {
		src  sessionio.Source
		want string
	}{
		{sessionio.Source{Name: "x", Type: "oracle"}, `unknown type "oracle"`},
		{sessionio.Source{Name: "x", Type: sessionio.TypeSQLite}, "path is missing"},
		{sessionio.Source{Name: "x", Type: sessionio.TypePostgreSQL, Port: 70000}, "port 70000"},
		{sessionio.Source{Name: "x", Type: sessionio.TypeMySQL, Host: "a b"}, "blanks"},
	} {
		db, err := Open(context.Background(), c.src, engine.Options{})
		if err == nil {
			db.Close()
			t.Errorf("Open(%+v) succeeded, want an error saying %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"x"`) {
			t.Errorf("Open(%+v) = %v, want the source's name and %q", c.src, err, c.want)
		}
	}
	// A server that is down does not fail Open.
	src := sessionio.Source{Name: "x", Type: sessionio.TypePostgreSQL, Host: "127.0.0.1", Port: closedPort(t), Password: dbtest.Password}
	db, err := Open(context.Background(), src, engine.Options{})
	if err != nil {
		t.Fatalf("Open with the server down: %v", err)
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		if got := fmt.Sprintf(format, db); strings.Contains(got, "ss:w") || strings.Contains(got, "%40") {
			t.Errorf("Sprintf(%q, db) = %s, which shows the password", format, got)
		}
		if got := fmt.Sprintf(format, struct{ DB *engine.DB }{db}); strings.Contains(got, "ss:w") {
			t.Errorf("Sprintf(%q) of a struct holding the DB = %s, which shows the password", format, got)
		}
	}
	db.Close()
}

// TestSQLitePath opens a file whose path holds the characters of a URI's
// syntax, and refuses to create a missing one.
func TestSQLitePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c#d%e&f=g")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := sessionio.Source{Name: "odd", Type: sessionio.TypeSQLite, Database: filepath.Join(dir, "x?.sqlite")}
	if err := os.WriteFile(src.Database, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dbtest.Seed(t, src)
	db := openDB(t, src, engine.Options{})
	wantStatus(t, db.Run(context.Background(), "SELECT count(*) FROM t", false), engine.StatusSuccess)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the database", len(entries))
	}
}
