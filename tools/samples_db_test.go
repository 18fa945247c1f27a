package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// The public sample schemas of testdata/schemas (DDL only, with their
// licences): Chinook on SQLite, Sakila on MariaDB, Pagila on PostgreSQL.
// Each is loaded into the real engine; every foreign key the engine's own
// catalog lists must reach the model in a table's full card.

// sampleStatements returns a sample's script as the statements dbtest.Exec
// runs, adapted to a test database where needed.
func sampleStatements(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "schemas", file))
	if err != nil {
		t.Fatalf("read the sample schema: %v", err)
	}
	script := string(data)
	switch {
	case strings.HasSuffix(file, ".postgresql.sql"):
		// The dump gives its objects to a role named postgres, which the
		// test server does not have; everything else runs as it is.
		owner := regexp.MustCompile(`(?m)^(ALTER .* OWNER TO postgres|REVOKE .* ON SCHEMA public .*|GRANT .* ON SCHEMA public .*);$`)
		return []string{owner.ReplaceAllString(script, "")}
	case strings.HasSuffix(file, ".mariadb.sql"):
		// The mysql client's DELIMITER lines split it; the test's own
		// database stands for the schema sakila it creates.
		script = strings.ReplaceAll(script, "sakila.", "")
		var stmts []string
		delim := ";"
		var cur strings.Builder
		for _, line := range strings.Split(script, "\n") {
			trimmed := strings.TrimSpace(line)
			if d, ok := strings.CutPrefix(trimmed, "DELIMITER "); ok {
				delim = strings.TrimSpace(d)
				continue
			}
			cur.WriteString(line + "\n")
			if strings.HasSuffix(trimmed, delim) {
				stmt := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(cur.String()), delim))
				cur.Reset()
				upper := strings.ToUpper(stmt)
				if strings.Contains(upper, "SCHEMA") && (strings.HasPrefix(upper, "DROP SCHEMA") || strings.HasPrefix(upper, "CREATE SCHEMA")) ||
					strings.HasPrefix(upper, "USE ") || stripComments(stmt) == "" {
					continue
				}
				stmts = append(stmts, stmt)
			}
		}
		return stmts
	}
	return []string{script}
}

// stripComments removes the -- comment lines of a statement.
func stripComments(stmt string) string {
	var kept []string
	for _, line := range strings.Split(stmt, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// sampleForeignKeys asks the engine's catalog, not ours, for the foreign
// keys: "table(cols) -> target(cols)", as the full card writes them.
var sampleForeignKeys = map[string]string{
	sessionio.TypeSQLite: `SELECT m.name || '(' || group_concat(f."from", ', ') || ') -> ' || f."table" || '(' || group_concat(f."to", ', ') || ')'
		FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f WHERE m.type = 'table' GROUP BY m.name, f.id ORDER BY 1`,
	sessionio.TypeMySQL: `SELECT CONCAT(TABLE_NAME, '(', GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION SEPARATOR ', '), ') -> ',
		REFERENCED_TABLE_NAME, '(', GROUP_CONCAT(REFERENCED_COLUMN_NAME ORDER BY ORDINAL_POSITION SEPARATOR ', '), ')')
		FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL
		GROUP BY TABLE_NAME, CONSTRAINT_NAME, REFERENCED_TABLE_NAME ORDER BY 1`,
	sessionio.TypePostgreSQL: `SELECT c.relname || '(' || (SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(con.conkey) WITH ORDINALITY AS k(n, i)
			JOIN pg_attribute AS a ON a.attrelid = con.conrelid AND a.attnum = k.n) || ') -> ' || r.relname || '(' ||
		(SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(con.confkey) WITH ORDINALITY AS k(n, i)
			JOIN pg_attribute AS a ON a.attrelid = con.confrelid AND a.attnum = k.n) || ')'
		FROM pg_constraint AS con JOIN pg_class AS c ON c.oid = con.conrelid JOIN pg_class AS r ON r.oid = con.confrelid
		WHERE con.contype = 'f' AND NOT c.relispartition ORDER BY 1`,
}

func TestSampleSchemas(t *testing.T) {
	samples := []struct {
		name, file string
		source     func(testing.TB) sessionio.Source
		fks        int // as the README in testdata/schemas counts them
	}{
		{"chinook", "chinook.sqlite.sql", dbtest.SQLite, 11},
		{"sakila", "sakila.mariadb.sql", dbtest.MariaDB, 22},
		{"pagila", "pagila.postgresql.sql", dbtest.Postgres, 18}, // 36 with the payment partitions' copies
	}
	for _, sample := range samples {
		t.Run(sample.name, func(t *testing.T) {
			t.Parallel()
			src := sample.source(t)
			// One connection for the whole script, which sets session
			// variables (FOREIGN_KEY_CHECKS) for the statements after.
			dbtest.Exec(t, dbtest.AsSuperuser(src), sampleStatements(t, sample.file)...)
			want := dbtest.QueryStrings(t, src, sampleForeignKeys[src.Type])
			if len(want) != sample.fks {
				t.Fatalf("the engine lists %d foreign keys, want %d: %v", len(want), sample.fks, want)
			}
			db := openDB(t, src, engine.Options{})
			s, err := db.Schema(context.Background())
			if err != nil {
				t.Fatalf("Schema: %v", err)
			}
			var cards strings.Builder
			for i := range s.Tables {
				cards.WriteString(s.Card(&s.Tables[i]))
			}
			for _, fk := range want {
				table, rest, _ := strings.Cut(fk, "(")
				if !strings.Contains(cards.String(), "foreign key: ("+rest) || !strings.Contains(cards.String(), "table "+table+" ") &&
					!strings.Contains(cards.String(), "table "+table+"\n") {
					t.Errorf("foreign key %s is not in the cards", fk)
				}
				tbl, ok := s.Lookup(table)
				if !ok || !strings.Contains(s.Card(tbl), "foreign key: ("+rest+"\n") {
					t.Errorf("foreign key %s is not in the card of %s", fk, table)
				}
			}
		})
	}
}
