package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
	"github.com/aiq/aiq-rpc/tools/sqltext/sqltexttest"
)

// TestClassifyCasesOnDatabase runs the classifier's shared cases on each
// engine with write false. A write or an unclassifiable statement must not
// run, and the database must be unchanged after it; a read must not be
// refused by the read-only transaction, which would mean that the
// classifier let a write through.
func TestClassifyCasesOnDatabase(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		before := fingerprint(t, e, src)
		for _, c := range sqltexttest.ClassifyCases {
			if !c.In(e.dialect) {
				continue
			}
			res := db.Run(ctx, c.SQL, false)
			switch {
			case c.Want == sqltext.Write || c.WantErr:
				if res.Status != engine.StatusRejected && res.Status != engine.StatusError {
					t.Errorf("%s: %q ran with status %q, want it refused", c.Name, c.SQL, res.Status)
				}
			case res.Status == engine.StatusRejected:
				t.Errorf("%s: %q, a read, was refused: %s", c.Name, c.SQL, res.Error)
			case res.Status != engine.StatusSuccess:
				t.Logf("%s: %q, a read, failed on %s: %s", c.Name, c.SQL, e.name, res.Error)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s: %q changed the database:\n%s\nbecame\n%s", c.Name, c.SQL, before, after)
			}
		}
	})
}

// TestClassifyCasesPastClassifier runs the shared writes on each engine
// with the classifier bypassed: whatever the read-only transaction lets
// through (SET, locks, session variables), the database stays unchanged.
func TestClassifyCasesPastClassifier(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		before := fingerprint(t, e, src)
		for _, c := range sqltexttest.ClassifyCases {
			if !c.In(e.dialect) || (c.Want != sqltext.Write && !c.WantErr) || c.SQL == "" {
				continue
			}
			res := db.Execute(ctx, c.SQL, false)
			if res.Status == engine.StatusSuccess {
				t.Logf("%s: %q runs in the read-only transaction on %s", c.Name, c.SQL, e.name)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s: %q changed the database past the classifier:\n%s\nbecame\n%s", c.Name, c.SQL, before, after)
			}
		}
		wantStatus(t, db.Run(ctx, "SELECT id, name FROM t", false), engine.StatusSuccess)
	})
}

// TestOutsideReadsAskFirst reads a server file as a superuser, the setup
// in which the read-only transaction stops nothing: the statement runs
// past it, so the classifier alone must make the user decide. Declined, it
// does not run; allowed, it returns what it read.
func TestOutsideReadsAskFirst(t *testing.T) {
	data, err := os.ReadFile("/etc/hostname")
	if err != nil {
		t.Skipf("skipped: the test reads /etc/hostname, which cannot be read here: %v", err)
	}
	hostname := string(data)
	type read struct{ sql, want string }
	reads := map[string][]read{
		"postgres": {
			{"SELECT pg_read_file('/etc/hostname')", hostname},
			{"SELECT convert_from(pg_read_binary_file('/etc/hostname'), 'UTF8')", hostname},
			{"SELECT count(*) FROM pg_ls_dir('/etc') AS f WHERE f = 'hostname'", "1"},
			{"SELECT size FROM pg_stat_file('/etc/hostname')", fmt.Sprint(len(hostname))},
		},
		"mariadb": {
			{"SELECT CAST(LOAD_FILE('/etc/hostname') AS CHAR)", hostname},
			{"select cast(load_file('/etc/hostname') as char) as f", hostname},
		},
	}
	for _, e := range testEngines {
		if len(reads[e.name]) == 0 {
			continue // SQLite has no server, and no file functions built in
		}
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			src, _ := seeded(t, e, engine.Options{})
			db := openDB(t, dbtest.AsSuperuser(src), engine.Options{})
			c := &confirmer{}
			s := NewSet(db, c.confirm)
			for _, r := range reads[e.name] {
				if res := db.Execute(ctx, r.sql, false); res.Status != engine.StatusSuccess {
					t.Fatalf("%s: status %q (%s): the test needs the read to run past the read-only transaction", r.sql, res.Status, res.Error)
				}
				res := db.Run(ctx, r.sql, false)
				if res.Status != engine.StatusRejected || !strings.Contains(res.Error, "outside the database") || len(res.Rows) != 0 {
					t.Errorf("%s: status %q, error %q, rows %v; want it refused, saying that it reads outside the database", r.sql, res.Status, res.Error, res.Rows)
				}
				if strings.Contains(res.Error, "change") {
					t.Errorf("%s: the model is told %q; a read changes nothing", r.sql, res.Error)
				}

				c.answers = []guard.Decision{Reject}
				res = execSQL(t, s, r.sql)
				if res.Status != engine.StatusRejected || len(res.Rows) != 0 {
					t.Errorf("%s declined: status %q, rows %v; want it not run", r.sql, res.Status, res.Rows)
				}
				c.answers = []guard.Decision{AllowOnce}
				res = execSQL(t, s, r.sql)
				wantStatus(t, res, engine.StatusSuccess)
				if got := fmt.Sprint(res.Rows[0][0]); got != r.want {
					t.Errorf("%s allowed: %q, want %q", r.sql, got, r.want)
				}
			}
			// Where no one can confirm, or the question fails, the user
			// is not told that a read writes.
			for _, set := range []*Set{NewSet(db, nil), NewSet(db, (&confirmer{err: errors.New("no editor")}).confirm)} {
				res := execSQL(t, set, reads[e.name][0].sql)
				if res.Status != engine.StatusRejected || !strings.HasPrefix(res.Error, "This statement reaches outside the database, ") || strings.Contains(mustJSON(t, res), "change") {
					t.Errorf("%s, unconfirmed: status %q, the user reads %q, the model %s; want it not run, said to reach outside the database", reads[e.name][0].sql, res.Status, res.Error, mustJSON(t, res))
				}
			}
			if len(c.requests) != 2*len(reads[e.name]) {
				t.Fatalf("%d confirmations for %d statements, want 2 each", len(c.requests), len(reads[e.name]))
			}
			for _, req := range c.requests {
				if !strings.Contains(req.Reason, "on the database server, outside the database") {
					t.Errorf("%s: the user is told %q, want it to say the statement reads the database server's files", req.SQL, req.Reason)
				}
				if req.Risk != "outside" {
					t.Errorf("%s: risk %q, want \"outside\": the dialog must not call a read a write", req.SQL, req.Risk)
				}
			}
		})
	}
}

// TestBodiesRunAfterApproval creates triggers and routines whose bodies
// hold several statements through execute_sql: the user is asked, as for
// any DDL; declined, nothing changes; allowed, each runs as one statement,
// and works.
func TestBodiesRunAfterApproval(t *testing.T) {
	type body struct {
		create string   // the statement with a body
		fire   []string // writes that make the body run
	}
	bodies := map[string][]body{
		"sqlite": {
			{create: "CREATE TABLE log (msg text)"},
			{create: "CREATE TEMP TRIGGER trg AFTER INSERT ON log BEGIN DELETE FROM t; END"},
			{
				create: "CREATE TRIGGER renamed AFTER INSERT ON t BEGIN " +
					"UPDATE t SET name = CASE WHEN new.id > 3 THEN 'fired' ELSE name END WHERE id = 1; " +
					"DELETE FROM t WHERE id = 2; END;",
				fire: []string{"INSERT INTO t (id, name) VALUES (4, 'four')"},
			},
		},
		"postgres": {
			{
				create: "CREATE FUNCTION bump() RETURNS int LANGUAGE sql BEGIN ATOMIC " +
					"UPDATE t SET name = CASE WHEN id = 1 THEN 'fired' ELSE name END; DELETE FROM t WHERE id = 2; SELECT 1; END",
				fire: []string{"SELECT bump()"},
			},
			{
				create: "CREATE RULE also AS ON INSERT TO t DO ALSO (UPDATE t SET name = 'fired' WHERE id = 1; DELETE FROM t WHERE id = 2)",
				fire:   []string{"INSERT INTO t (id, name) VALUES (4, 'four')"},
			},
		},
		"mariadb": {
			{
				create: "CREATE PROCEDURE bump(n INT) BEGIN DECLARE i INT DEFAULT 0; " +
					"lbl: LOOP SET i = i + 1; IF i >= n THEN LEAVE lbl; END IF; END LOOP lbl; " +
					"CASE i WHEN 3 THEN UPDATE t SET name = IF(id = 1, 'fired', name); ELSE BEGIN END; END CASE; " +
					"WHILE i > 0 DO SET i = i - 1; END WHILE; DELETE FROM t WHERE id = 2; END",
				fire: []string{"CALL bump(3)"},
			},
			{
				create: "CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW BEGIN IF NEW.id > 3 THEN SET NEW.name = 'four!'; END IF; END",
				fire:   []string{"INSERT INTO t (id, name) VALUES (4, 'four')"},
			},
		},
	}
	want := map[string]string{
		"sqlite":   "1|fired 3|three 4|four",
		"postgres": "1|fired 3|three 4|four",
		"mariadb":  "1|fired 3|three 4|four!",
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, engine.Options{})
		c := &confirmer{}
		s := NewSet(db, c.confirm)
		for _, b := range bodies[e.name] {
			before := fingerprint(t, e, src)
			c.answers = []guard.Decision{Reject}
			res := execSQL(t, s, b.create)
			if res.Status != engine.StatusRejected || len(c.requests) != 1 || c.requests[0].Risk != "ddl" {
				t.Fatalf("%s declined: status %q (%s), confirmations %+v; want one DDL confirmation, declined", b.create, res.Status, res.Error, c.requests)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s changed the database unconfirmed", b.create)
			}
			c.answers, c.requests = []guard.Decision{AllowOnce}, nil
			wantStatus(t, execSQL(t, s, b.create), engine.StatusSuccess)
			c.requests = nil
			for _, w := range b.fire {
				wantStatus(t, db.Run(ctx, w, true), engine.StatusSuccess)
			}
		}
		rows := dbtest.QueryStrings(t, src, "SELECT "+concatIDName(e.dialect)+" FROM t ORDER BY id")
		if got := strings.Join(rows, " "); got != want[e.name] {
			t.Errorf("rows of t after the bodies ran: %q, want %q", got, want[e.name])
		}
	})
}

// concatIDName is the expression "id|name" in d.
func concatIDName(d sqltext.Dialect) string {
	if d == sqltext.DialectMySQL {
		return "CONCAT(id, '|', name)"
	}
	return "id || '|' || name"
}
