package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// costCases are, per engine, a read the gate stops and one it lets
// through, on a table "big" of 2,000 rows; limit is the source's
// max_estimated_rows (0: the default, 10,000,000).
var costCases = map[string]struct {
	limit       int64
	costly, ok  string
	big         []string
	wantMention string
}{
	"postgres": {0, "SELECT a, b FROM generate_series(1, 100000) a, generate_series(1, 100000) b", "SELECT count(*) FROM big WHERE id = 5",
		[]string{"CREATE TABLE big (id int PRIMARY KEY)", "INSERT INTO big SELECT generate_series(1, 2000)", "ANALYZE big"}, "10,000,000"},
	"mariadb": {100000, "SELECT a.id, b.id FROM big a, big b", "SELECT id FROM big WHERE id = 5",
		[]string{"CREATE TABLE big (id int PRIMARY KEY) ENGINE=InnoDB", "INSERT INTO big SELECT seq FROM seq_1_to_2000", "ANALYZE TABLE big"}, "100,000"},
	"sqlite": {1000, "SELECT * FROM big", "SELECT * FROM big WHERE id = 5",
		[]string{"CREATE TABLE big (id integer PRIMARY KEY)", "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT i FROM c"}, "1,000"},
}

// TestCostGate: a read the engine estimates above max_estimated_rows asks
// first, with risk "cost" and the estimate, and runs (read-only) once
// allowed; a cheap read does not ask.
func TestCostGate(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		c := costCases[e.name]
		src := e.source(t)
		dbtest.Exec(t, src, c.big...)
		src.MaxEstimatedRows = c.limit
		conf := &confirmer{answers: []guard.Decision{Reject, AllowOnce}}
		s := NewSet(openDB(t, src, engine.Options{}), conf.confirm)

		wantStatus(t, execSQL(t, s, c.ok), engine.StatusSuccess)
		if len(conf.requests) != 0 {
			t.Fatalf("a cheap read asked: %+v", conf.requests)
		}
		wantStatus(t, execSQL(t, s, c.costly), engine.StatusRejected)
		if len(conf.requests) != 1 {
			t.Fatalf("a costly read did not ask")
		}
		req := conf.requests[0]
		if req.Risk != "cost" || !strings.Contains(req.Reason, "estimates") || !strings.Contains(req.Reason, c.wantMention) || req.Scope != "" {
			t.Errorf("request %+v: want risk cost, the estimate and the limit %s, no scope", req, c.wantMention)
		}
		// An export of all the rows goes through the same gate.
		conf.answers = append([]guard.Decision{Reject}, conf.answers...)
		if res := s.Export(context.Background(), c.costly); res.Status != engine.StatusRejected || len(conf.requests) != 2 || conf.requests[1].Risk != "cost" {
			t.Fatalf("a costly export: %s %q after %d requests; want it to ask, and run nothing when rejected", res.Status, res.Error, len(conf.requests))
		}
		if e.name == "sqlite" {
			// Allowed once, it runs, read-only as ever.
			res := execSQL(t, s, c.costly)
			wantStatus(t, res, engine.StatusSuccess)
			if res.RowCount != 2000 {
				t.Errorf("the allowed read returned %d rows, want 2000", res.RowCount)
			}
		}
	})
}

// TestCostGateNeverRunsSeveralStatements: the gate's EXPLAIN sees only what
// the classifier read as one read. SQLite's driver runs every statement of
// a string, so a gate that explained "SELECT 1; PRAGMA query_only = 0;
// DELETE FROM t" would delete the rows with no one asked.
func TestCostGateNeverRunsSeveralStatements(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src, "CREATE TABLE t (id int)", "INSERT INTO t VALUES (1), (2)")
		conf := &confirmer{}
		s := NewSet(openDB(t, src, engine.Options{}), conf.confirm)
		for _, sql := range []string{
			"SELECT 1; PRAGMA query_only = 0; DELETE FROM t",
			"SELECT 1; DELETE FROM t",
			"SELECT 1; SET TRANSACTION READ WRITE; DELETE FROM t",
		} {
			res := execSQL(t, s, sql)
			if res.Status == engine.StatusSuccess {
				t.Errorf("%q ran: %+v", sql, res)
			}
		}
		if len(conf.requests) != 0 {
			t.Errorf("several statements asked the user: %+v", conf.requests)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM t"); n != 2 {
			t.Fatalf("t holds %d rows after the attacks, want 2", n)
		}
	})
}

// TestCostGateCountsWhatTheReadGoesThrough: the gate weighs the rows a read
// goes through, not the rows it returns: an aggregate or a LIMIT over a
// large join asks like the join itself, and on SQLite a table read under
// an alias is counted as the table.
func TestCostGateCountsWhatTheReadGoesThrough(t *testing.T) {
	asks := map[string][]string{
		"postgres": {"SELECT count(*) FROM big a, big b", "SELECT a.id FROM big a, big b LIMIT 5",
			"SELECT max(a.id) FROM big a CROSS JOIN big b WHERE a.id + b.id > 3"},
		"mariadb": {"SELECT count(*) FROM big a, big b", "SELECT a.id FROM big a, big b LIMIT 5"},
		"sqlite": {"SELECT * FROM big AS a", "SELECT a.id FROM big a LIMIT 5", "SELECT max(a.id) FROM big a JOIN big b ON a.id <> b.id",
			"SELECT x FROM (SELECT id AS x FROM big b) WHERE x % 7 = 3"},
	}
	runs := map[string][]string{
		"postgres": {"SELECT count(*) FROM big", "SELECT id FROM big b WHERE b.id = 5"},
		"mariadb":  {"SELECT id FROM big b WHERE b.id = 5"},
		"sqlite":   {"SELECT id FROM big b WHERE b.id = 5", "SELECT 1"},
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		c := costCases[e.name]
		src := e.source(t)
		dbtest.Exec(t, src, c.big...)
		src.MaxEstimatedRows = 10000
		if e.name == "sqlite" {
			src.MaxEstimatedRows = 1000
		}
		conf := &confirmer{}
		s := NewSet(openDB(t, src, engine.Options{}), conf.confirm)
		for _, sql := range runs[e.name] {
			wantStatus(t, execSQL(t, s, sql), engine.StatusSuccess)
		}
		if len(conf.requests) != 0 {
			t.Fatalf("a cheap read asked: %+v", conf.requests)
		}
		for i, sql := range asks[e.name] {
			wantStatus(t, execSQL(t, s, sql), engine.StatusRejected)
			if len(conf.requests) != i+1 || conf.requests[i].Risk != "cost" {
				t.Errorf("%s did not ask as a costly read", sql)
				conf.requests = append(conf.requests[:i], guard.ConfirmRequest{})
			}
		}
	})
}

// TestCostGateSQLiteProduct: on SQLite a full scan nested in another's
// loop reads the product of their rows, so a cross join of two tables
// each under the limit asks; scans one after the other, an index lookup
// and an automatic index do not multiply.
func TestCostGateSQLiteProduct(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE s1 (id integer PRIMARY KEY, v integer)", "CREATE TABLE s2 (id integer PRIMARY KEY, v integer)",
		"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100) INSERT INTO s1 SELECT i, i % 10 FROM c",
		"INSERT INTO s2 SELECT * FROM s1")
	src.MaxEstimatedRows = 1000
	conf := &confirmer{}
	s := NewSet(openDB(t, src, engine.Options{}), conf.confirm)
	for _, sql := range []string{
		"SELECT count(*) FROM s1",
		"SELECT * FROM s1 UNION ALL SELECT * FROM s2",
		"SELECT s1.v FROM s1 JOIN s2 ON s2.id = s1.id",
		"SELECT count(*) FROM s1 WHERE v IN (SELECT v FROM s2)",
		"SELECT count(*) FROM s1 JOIN s2 ON s1.v = s2.v + 100",
	} {
		wantStatus(t, execSQL(t, s, sql), engine.StatusSuccess)
		if len(conf.requests) != 0 {
			t.Fatalf("%s asked: %+v", sql, conf.requests)
		}
	}
	for i, sql := range []string{
		"SELECT count(*) FROM s1, s2",
		"SELECT a.id FROM s1 a CROSS JOIN s2 b LIMIT 5",
		"SELECT max(a.id) FROM s1 a JOIN s2 b ON a.v <> b.v",
	} {
		wantStatus(t, execSQL(t, s, sql), engine.StatusRejected)
		if len(conf.requests) != i+1 || conf.requests[i].Risk != "cost" {
			t.Errorf("%s did not ask as a costly read", sql)
			conf.requests = append(conf.requests[:i], guard.ConfirmRequest{})
		}
	}
}
