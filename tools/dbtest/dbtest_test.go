package dbtest_test

import (
	"os"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// TestServers starts each engine, seeds a database and reads it back, and
// checks that two calls give two databases.
func TestServers(t *testing.T) {
	engines := []struct {
		name string
		open func(testing.TB) sessionio.Source
	}{
		{"sqlite", dbtest.SQLite},
		{"postgres", dbtest.Postgres},
		{"mariadb", dbtest.MariaDB},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			src := e.open(t)
			other := e.open(t)
			if src.Database == other.Database {
				t.Fatalf("two calls gave the same database %q", src.Database)
			}
			if src.Type != sessionio.TypeSQLite && src.Password.Reveal() != dbtest.Password {
				t.Errorf("password = %q, want dbtest.Password", src.Password.Reveal())
			}
			dbtest.Seed(t, src)
			if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM t"); n != 3 {
				t.Errorf("seeded rows = %d, want 3", n)
			}
			if !dbtest.TableExists(t, src, "t") || dbtest.TableExists(t, other, "t") {
				t.Errorf("table t exists in the seeded database only: got %v and %v",
					dbtest.TableExists(t, src, "t"), dbtest.TableExists(t, other, "t"))
			}
		})
	}
}
