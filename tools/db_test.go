package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// TestMain stops the test database servers once the tests are done.
func TestMain(m *testing.M) {
	os.Exit(dbtest.Main(m))
}

// testEngine is one database engine the tests run on, with the statements
// that differ between engines.
type testEngine struct {
	name    string
	dialect sqltext.Dialect
	source  func(testing.TB) sessionio.Source
	// version is how Version starts.
	version string
	// sleep is a statement that runs for that many seconds (SQLite's runs
	// until stopped).
	sleep func(seconds int) string
	// slowWrite is a write that runs for 600 seconds or more.
	slowWrite string
	// running counts the statements of sleep(600) still running on the
	// server; "" when the engine has no server.
	running string
	// state lists the queries whose answers, together, change with any
	// write the tests try.
	state []string
	// writes are statements that change the database in ways state sees.
	writes []string
	// addRow creates a function add_row() that inserts a row into t, a
	// write the classifier cannot see in "SELECT add_row()"; "" when the
	// engine has no such functions.
	addRow string
}

// waitTimeout bounds a wait for an event (a statement that starts, stops,
// or goes); only a hang reaches it, even on a loaded machine.
const waitTimeout = 2 * time.Minute

// sqliteForever is a statement that runs until it is interrupted.
const sqliteForever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

// commonWrites are writes every engine runs.
var commonWrites = []string{
	"INSERT INTO t (id, name) VALUES (4, 'four')",
	"UPDATE t SET name = 'changed'",
	"DELETE FROM t",
	"CREATE TABLE made (a int)",
	"DROP TABLE t",
	"ALTER TABLE t ADD COLUMN extra int",
	"CREATE INDEX t_name ON t (name)",
	"CREATE VIEW v AS SELECT id FROM t",
}

var testEngines = []testEngine{
	{
		name:      "sqlite",
		dialect:   sqltext.DialectSQLite,
		source:    dbtest.SQLite,
		version:   "SQLite 3.",
		sleep:     func(int) string { return sqliteForever },
		slowWrite: "INSERT INTO t (id, name) WITH RECURSIVE c(x) AS (SELECT 10 UNION ALL SELECT x + 1 FROM c) SELECT x, 'many' FROM c",
		state: []string{
			"SELECT type || ' ' || name FROM sqlite_master ORDER BY 1",
			"PRAGMA user_version",
			"SELECT id || '|' || name FROM t ORDER BY id",
		},
		writes: append(slices.Clone(commonWrites),
			"PRAGMA user_version = 7",
			"REPLACE INTO t (id, name) VALUES (1, 'replaced')",
			// The driver runs every statement of a script.
			"SELECT 1; PRAGMA query_only = 0; DELETE FROM t",
			"SELECT 1; COMMIT; DELETE FROM t",
			"SELECT 1; ATTACH DATABASE ':memory:' AS aux",
		),
	},
	{
		name:      "postgres",
		dialect:   sqltext.DialectPostgres,
		source:    dbtest.Postgres,
		version:   "PostgreSQL ",
		sleep:     func(s int) string { return fmt.Sprintf("SELECT pg_sleep(%d)", s) },
		slowWrite: "INSERT INTO t (id, name) SELECT 10, pg_sleep(600)::text",
		running: "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' " +
			"AND query LIKE '%pg_sleep(600)%' AND pid <> pg_backend_pid()",
		state: []string{
			"SELECT table_type || ' ' || table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
			"SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1",
			"SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1",
			"SELECT routine_name FROM information_schema.routines WHERE routine_schema = current_schema() ORDER BY 1",
			"SELECT id || '|' || name FROM t ORDER BY id",
		},
		writes: append(slices.Clone(commonWrites),
			"TRUNCATE t",
			"CREATE SEQUENCE s",
			"WITH gone AS (DELETE FROM t RETURNING id) SELECT count(*) FROM gone",
			"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		),
		addRow: "CREATE FUNCTION add_row() RETURNS int LANGUAGE sql AS " +
			"'INSERT INTO t (id, name) VALUES (9, ''nine'') RETURNING id'",
	},
	{
		name:      "mariadb",
		dialect:   sqltext.DialectMySQL,
		source:    dbtest.MariaDB,
		version:   "MariaDB 10.",
		sleep:     func(s int) string { return fmt.Sprintf("SELECT SLEEP(%d) FROM t", s) },
		slowWrite: "INSERT INTO t (id, name) SELECT 10, SLEEP(600)",
		running: "SELECT count(*) FROM information_schema.processlist " +
			"WHERE info LIKE '%SLEEP(600)%' AND id <> CONNECTION_ID()",
		state: []string{
			"SELECT CONCAT(table_type, ' ', table_name) FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1",
			"SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY 1",
			"SELECT routine_name FROM information_schema.routines WHERE routine_schema = DATABASE() ORDER BY 1",
			"SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = DATABASE() ORDER BY 1",
			"SELECT CONCAT(id, '|', name) FROM t ORDER BY id",
		},
		writes: append(slices.Clone(commonWrites),
			"TRUNCATE t",
			"RENAME TABLE t TO t2",
			"CREATE TABLE copy AS SELECT * FROM t",
			"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.name = 'x'",
		),
		addRow: "CREATE FUNCTION add_row() RETURNS int MODIFIES SQL DATA " +
			"BEGIN INSERT INTO t (id, name) VALUES (9, 'nine'); RETURN 9; END",
	},
}

// forEachEngine runs f as a subtest for each engine, in parallel.
func forEachEngine(t *testing.T, f func(t *testing.T, e testEngine)) {
	for _, e := range testEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			f(t, e)
		})
	}
}

// openDB opens src for the test and closes it at the end.
func openDB(t testing.TB, src sessionio.Source, opts engine.Options) *engine.DB {
	t.Helper()
	db, err := Open(context.Background(), src, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// seeded returns a source with table t seeded, and its DB.
func seeded(t *testing.T, e testEngine, opts engine.Options) (sessionio.Source, *engine.DB) {
	t.Helper()
	src := e.source(t)
	dbtest.Seed(t, src)
	return src, openDB(t, src, opts)
}

// fingerprint returns the answers of the engine's state queries.
func fingerprint(t *testing.T, e testEngine, src sessionio.Source) string {
	t.Helper()
	// Each query's rows, then a line that ends them.
	queries := make([]string, 0, 2*len(e.state))
	for _, q := range e.state {
		queries = append(queries, q, "SELECT '--'")
	}
	return strings.Join(dbtest.QueryStrings(t, src, queries...), "\n")
}

// rowsJSON returns the result's rows as JSON.
func rowsJSON(t *testing.T, res *engine.StatementResult) string {
	t.Helper()
	data, err := json.Marshal(res.Rows)
	if err != nil {
		t.Fatalf("marshal rows: %v", err)
	}
	return string(data)
}

// wantStatus fails the test unless res has the status.
func wantStatus(t *testing.T, res *engine.StatementResult, status string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: status %q (error %q), want %q", res.SQL, res.Status, res.Error, status)
	}
}

func TestIntrospection(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		if db.Dialect() != e.dialect || !db.Source().Equal(src) {
			t.Errorf("Dialect, Source = %q, %v; want %q and the source", db.Dialect(), db.Source(), e.dialect)
		}
		v, err := db.Version(ctx)
		if err != nil || !strings.HasPrefix(v, e.version) {
			t.Errorf("Version = %q, %v; want %q...", v, err, e.version)
		}
		s, err := db.Schema(ctx)
		if err != nil {
			t.Fatalf("Schema: %v", err)
		}
		tbl, ok := s.Table("t")
		if !ok || tbl.Schema != "" || len(tbl.Columns) != 2 {
			t.Fatalf("Schema has t = %+v, %v; want two columns in the default schema", tbl, ok)
		}
		id, name := tbl.Columns[0], tbl.Columns[1]
		if id.Name != "id" || id.Nullable || !strings.Contains(strings.ToLower(id.Type), "int") {
			t.Errorf("column id = %+v, want a non-null integer", id)
		}
		if name.Name != "name" || !name.Nullable || !strings.Contains(strings.ToLower(name.Type), "text") {
			t.Errorf("column name = %+v, want a nullable text", name)
		}
		if line := s.Line(&tbl); !strings.HasPrefix(line, "t(id int PK, name ") {
			t.Errorf("Line = %q, want t(id int PK, name ...)", line)
		}

		dbtest.Exec(t, src, "CREATE TABLE u (x int)")
		if s2, _ := db.Schema(ctx); len(s2.Tables) != 1 {
			t.Errorf("the cached schema changed without RefreshSchema: %v", s2.Names())
		}
		db.RefreshSchema()
		s3, err := db.Schema(ctx)
		if err != nil || !slices.Equal(s3.Names(), []string{"t", "u"}) {
			t.Errorf("after RefreshSchema, tables = %v, %v; want [t u]", s3.Names(), err)
		}
	})
}

func TestReads(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{MaxRows: 2})
		res := db.Run(ctx, "SELECT id, name FROM t ORDER BY id", false)
		wantStatus(t, res, engine.StatusSuccess)
		if !slices.Equal(res.Columns, []string{"id", "name"}) || res.RowCount != 3 || !res.Truncated {
			t.Errorf("columns %v, row count %d, truncated %v; want [id name], 3, true", res.Columns, res.RowCount, res.Truncated)
		}
		if got := rowsJSON(t, res); got != `[[1,"one"],[2,"two"]]` {
			t.Errorf("rows = %s, want the first two", got)
		}

		res = db.Run(ctx, "SELECT id FROM t WHERE id > 100", false)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 0 || rowsJSON(t, res) != "[]" || res.Truncated {
			t.Errorf("empty result: count %d, rows %s, truncated %v", res.RowCount, rowsJSON(t, res), res.Truncated)
		}

		res = db.Run(ctx, "SELECT 1 AS i, 2.5 AS d, 'x' AS s, NULL AS n", false)
		wantStatus(t, res, engine.StatusSuccess)
		if got := rowsJSON(t, res); got != `[[1,2.5,"x",null]]` {
			t.Errorf("values = %s, want [[1,2.5,\"x\",null]]", got)
		}

		res = db.Run(ctx, "SELECT no_such_column FROM t", false)
		wantStatus(t, res, engine.StatusError)
		if res.Error == "" || res.Rows != nil || res.RowCount != 0 {
			t.Errorf("failed statement: error %q, rows %v, count %d", res.Error, res.Rows, res.RowCount)
		}

		for _, sql := range []string{"", "SELECT 1; SELECT 2"} {
			if res := db.Run(ctx, sql, false); res.Status != engine.StatusError || res.Error == "" {
				t.Errorf("Run(%q): status %q, error %q; want an error", sql, res.Status, res.Error)
			}
		}
		// Past the classifier, the drivers run one statement only.
		res = db.Execute(ctx, "SELECT 1; DELETE FROM t", false)
		if res.Status == engine.StatusSuccess && res.RowCount != 1 {
			t.Errorf("two statements past the classifier: %+v", res)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM t"); n != 3 {
			t.Errorf("rows of t = %d after a second statement past the classifier, want 3", n)
		}
	})
}

// TestWritesRefused runs writes with write false: the classifier refuses
// them, and the database is unchanged.
func TestWritesRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		before := fingerprint(t, e, src)
		for _, sql := range e.writes {
			res := db.Run(ctx, sql, false)
			if res.Status != engine.StatusRejected && res.Status != engine.StatusError {
				t.Errorf("%s: status %q, want rejected", sql, res.Status)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s changed the database:\n%s\nbecame\n%s", sql, before, after)
			}
		}
	})
}

// TestReadOnlyTransaction runs writes past the classifier: the engine's
// read-only transaction alone must refuse them.
func TestReadOnlyTransaction(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		before := fingerprint(t, e, src)
		for _, sql := range e.writes {
			res := db.Execute(ctx, sql, false)
			if res.Status != engine.StatusRejected || !res.ReadOnlyRefused {
				t.Errorf("%s: status %q (%s), want rejected by the read-only transaction", sql, res.Status, res.Error)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s changed the database:\n%s\nbecame\n%s", sql, before, after)
			}
		}
		// The connections stay usable for reads.
		wantStatus(t, db.Run(ctx, "SELECT count(*) FROM t", false), engine.StatusSuccess)
	})
}

func TestWrites(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		res := db.Run(ctx, "UPDATE t SET name = 'changed' WHERE id <= 2", true)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 2 || len(res.Columns) != 0 {
			t.Errorf("UPDATE: row count %d, columns %v; want 2 affected", res.RowCount, res.Columns)
		}
		res = db.Run(ctx, "CREATE TABLE made (a int)", true)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 0 || !dbtest.TableExists(t, src, "made") {
			t.Errorf("CREATE TABLE: row count %d, table made exists %v", res.RowCount, dbtest.TableExists(t, src, "made"))
		}
		// A failed write leaves nothing behind.
		res = db.Run(ctx, "INSERT INTO t (id, name) VALUES (5, 'five'), (1, 'duplicate')", true)
		wantStatus(t, res, engine.StatusError)
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM t"); n != 3 {
			t.Errorf("rows of t = %d after a failed insert, want 3", n)
		}
		// Reads after writes still run read-only.
		res = db.Execute(ctx, "DELETE FROM t", false)
		if res.Status != engine.StatusRejected {
			t.Errorf("DELETE after writes: status %q, want rejected by the read-only transaction", res.Status)
		}
	})
}

// TestCancel cancels a statement that would run for ten minutes: Run
// answers, cancelled, and the statement is gone from the server, long
// before it would have ended. How fast is the benchmarks' business; the
// waits here are minutes, which only a cancel that did not work reaches.
func TestCancel(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src, db := seeded(t, e, engine.Options{StatementTimeout: time.Hour})
		for _, c := range []struct {
			sql   string
			write bool
		}{{e.sleep(600), false}, {e.slowWrite, true}} {
			before := fingerprint(t, e, src)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan *engine.StatementResult, 1)
			go func() { done <- db.Run(ctx, c.sql, c.write) }()
			waitRunning(t, e, src, c.sql)
			start := time.Now()
			cancel()
			var res *engine.StatementResult
			select {
			case res = <-done:
			case <-time.After(waitTimeout):
				t.Fatalf("%s: Run did not return %v after the cancel", c.sql, waitTimeout)
			}
			wantStatus(t, res, engine.StatusCancelled)
			t.Logf("%s: cancelled in %v: %s", c.sql, time.Since(start), res.Error)
			waitGone(t, e, src)
			t.Logf("%s: gone from the server %v after the cancel", c.sql, time.Since(start))
			if after := fingerprint(t, e, src); after != before {
				t.Errorf("the cancelled %s changed the database:\n%s\nbecame\n%s", c.sql, before, after)
			}
		}
		wantStatus(t, db.Run(context.Background(), "SELECT count(*) FROM t", false), engine.StatusSuccess)
	})
}

// TestStatementTimeoutWithoutError: MariaDB's max_statement_time stops
// BENCHMARK without an error, returning 0; the result still says the
// statement was stopped, not a success.
func TestStatementTimeoutWithoutError(t *testing.T) {
	for _, e := range testEngines {
		if e.name != "mariadb" {
			continue // BENCHMARK is MariaDB's; TestStatementTimeout covers every engine
		}
		_, db := seeded(t, e, engine.Options{StatementTimeout: time.Second})
		res := db.Run(context.Background(), "SELECT BENCHMARK(10000000000, MD5('x'))", false)
		wantStatus(t, res, engine.StatusCancelled)
		if !strings.Contains(res.Error, "took longer than the statement timeout (1s)") || len(res.Rows) != 0 {
			t.Errorf("error %q, rows %v; want the timeout's reason and no rows", res.Error, res.Rows)
		}
	}
}

// waitRunning waits until the statement runs on the server; for SQLite,
// which has no process list, a moment.
func waitRunning(t *testing.T, e testEngine, src sessionio.Source, sql string) {
	t.Helper()
	if e.running == "" {
		time.Sleep(300 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(waitTimeout)
	for dbtest.QueryInt(t, src, e.running) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not show in the server's process list", sql)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone fails the test unless the server's process list loses the
// sleeping statement within waitTimeout, far less than it would sleep.
func waitGone(t *testing.T, e testEngine, src sessionio.Source) {
	t.Helper()
	if e.running == "" {
		return
	}
	deadline := time.Now().Add(waitTimeout)
	for dbtest.QueryInt(t, src, e.running) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled statement still runs on the server %v later", waitTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStatementTimeout(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		_, db := seeded(t, e, engine.Options{StatementTimeout: time.Second})
		if db.Grace > 0 {
			// The server's own timeout, not the client's later deadline,
			// which the test's context would reach first: a statement
			// cancelled by it is "cancelled", not "timed out".
			db.Grace = time.Hour
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
		defer cancel()
		start := time.Now()
		res := db.Run(ctx, e.sleep(600), false)
		took := time.Since(start)
		wantStatus(t, res, engine.StatusCancelled)
		if !strings.Contains(res.Error, "took longer than the statement timeout (1s)") {
			t.Errorf("error %q, want it to say the statement took longer than the statement timeout (1s)", res.Error)
		}
		if took < 900*time.Millisecond {
			t.Errorf("the statement stopped after %v, before its 1s limit", took)
		}
		wantStatus(t, db.Run(context.Background(), "SELECT count(*) FROM t", false), engine.StatusSuccess)
	})
}

// TestWriteCountsItsOwnRows: a write's row count is the rows the statement
// itself matched, on every engine: not the rows its triggers wrote
// (SQLite's total_changes() counts them), and on MariaDB also the rows an
// UPDATE matched whose values did not change (MariaDB counts changed rows
// unless asked for found rows); the dry run counts the same.
func TestWriteCountsItsOwnRows(t *testing.T) {
	triggers := map[string][]string{
		"sqlite": {"CREATE TRIGGER tr AFTER UPDATE ON t BEGIN INSERT INTO log VALUES (1); INSERT INTO log VALUES (2); END"},
		"postgres": {"CREATE FUNCTION tr() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO log VALUES (1), (2); RETURN NEW; END $$",
			"CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW EXECUTE FUNCTION tr()"},
		"mariadb": {"CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW INSERT INTO log VALUES (1), (2)"},
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		dbtest.Exec(t, src, "CREATE TABLE same (id int PRIMARY KEY, v int)", "INSERT INTO same VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")
		if dr := db.DryRun(ctx, "UPDATE same SET v = 0 WHERE id > 0"); dr.Status != engine.DryRunOK || dr.Rows != 5 {
			t.Errorf("dry run of an UPDATE that matches 5 rows and changes none: %+v, want 5", dr)
		}
		res := db.Run(ctx, "UPDATE same SET v = 0 WHERE id > 0", true)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 5 {
			t.Errorf("an UPDATE that matches 5 rows and changes none counts %d, want 5", res.RowCount)
		}
		dbtest.Exec(t, src, "CREATE TABLE log (x int)")
		dbtest.Exec(t, src, triggers[e.name]...)
		db.RefreshSchema()
		res = db.Run(ctx, "UPDATE t SET name = 'z' WHERE id = 1", true)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 1 {
			t.Errorf("an UPDATE of 1 row whose trigger wrote 2 counts %d, want 1", res.RowCount)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM log"); n != 2 {
			t.Errorf("the trigger wrote %d rows, want 2", n)
		}
	})
}

// TestEngineWarnings: what the engine says about a statement besides its
// rows reaches the result and the model: MariaDB's warnings (a recursive
// CTE cut at max_recursive_iterations, a truncated value) and
// PostgreSQL's notices.
func TestEngineWarnings(t *testing.T) {
	cases := map[string]struct {
		sql, want string
	}{
		"postgres": {"DO $$ BEGIN RAISE NOTICE 'look at %', 42; END $$", "NOTICE: look at 42"},
		"mariadb": {"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000) SELECT count(*) FROM c",
			"max_recursive_iterations"},
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		c, ok := cases[e.name]
		if !ok {
			return // SQLite says nothing besides its errors
		}
		_, db := seeded(t, e, engine.Options{})
		write := e.name == "postgres" // DO may write: it runs as a confirmed write
		res := db.Run(context.Background(), c.sql, write)
		wantStatus(t, res, engine.StatusSuccess)
		if !strings.Contains(strings.Join(res.Warnings, "\n"), c.want) {
			t.Errorf("warnings %q, want one with %q", res.Warnings, c.want)
		}
		data, err := json.Marshal(res)
		if err != nil || !strings.Contains(string(data), c.want) {
			t.Errorf("the model reads %s, want the warning %q", data, c.want)
		}
	})
}

// TestEngineWarningsOfAWrite: a write's warnings survive the read of its
// row count on MariaDB.
func TestEngineWarningsOfAWrite(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		if e.name != "mariadb" {
			return // the order of ROW_COUNT() and SHOW WARNINGS is MySQL's
		}
		src, db := seeded(t, e, engine.Options{})
		dbtest.Exec(t, src, "SET SESSION sql_mode = ''", "CREATE TABLE short (s varchar(3))")
		res := db.Run(context.Background(), "INSERT IGNORE INTO short VALUES ('abcdef'), ('xy')", true)
		wantStatus(t, res, engine.StatusSuccess)
		if res.RowCount != 2 || !strings.Contains(strings.Join(res.Warnings, "\n"), "truncated") {
			t.Errorf("row count %d, warnings %q; want 2 rows and the truncation", res.RowCount, res.Warnings)
		}
	})
}
