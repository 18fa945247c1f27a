package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// dryRunSchema makes, on each engine, a parent table whose children are
// deleted in cascade, a child table with a generated id, and a table with
// a trigger; on MariaDB also a MyISAM table.
var dryRunSchema = map[string][]string{
	"sqlite": {
		"CREATE TABLE parent (id integer PRIMARY KEY)",
		"CREATE TABLE child (id integer PRIMARY KEY AUTOINCREMENT, parent_id integer REFERENCES parent (id) ON DELETE CASCADE)",
		"CREATE TABLE trig (a integer)",
		"CREATE TRIGGER trig_log AFTER INSERT ON trig BEGIN SELECT 1; END",
	},
	"postgres": {
		"CREATE TABLE parent (id int PRIMARY KEY)",
		"CREATE TABLE child (id serial PRIMARY KEY, parent_id int REFERENCES parent (id) ON DELETE CASCADE)",
		"CREATE TABLE trig (a int)",
		"CREATE FUNCTION trig_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
		"CREATE TRIGGER trig_log BEFORE INSERT ON trig FOR EACH ROW EXECUTE FUNCTION trig_f()",
	},
	"mariadb": {
		"CREATE TABLE parent (id int PRIMARY KEY) ENGINE=InnoDB",
		"CREATE TABLE child (id int AUTO_INCREMENT PRIMARY KEY, parent_id int, FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE) ENGINE=InnoDB",
		"CREATE TABLE trig (a int) ENGINE=InnoDB",
		"CREATE TRIGGER trig_log BEFORE INSERT ON trig FOR EACH ROW SET NEW.a = NEW.a + 1",
		"CREATE TABLE plain (a int) ENGINE=MyISAM",
		"INSERT INTO plain VALUES (1), (2)",
	},
}

// TestDryRunOnEachEngine counts the rows of INSERT, UPDATE and DELETE on
// the real engines and checks that nothing changed afterwards, cascades
// included; a table with a trigger, a MyISAM table and statements that
// are not plain data changes are skipped, a failing one fails.
func TestDryRunOnEachEngine(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Exec(t, src, dryRunSchema[e.name]...)
		dbtest.Exec(t, src, "INSERT INTO parent (id) VALUES (1), (2), (3)",
			"INSERT INTO child (parent_id) VALUES (1), (1), (2), (2), (3), (3)")
		db := openDB(t, src, engine.Options{})
		counts := func() string {
			return strings.Join(dbtest.QueryStrings(t, src, "SELECT count(*) FROM parent", "SELECT count(*) FROM child", "SELECT count(*) FROM trig"), ",")
		}
		before := counts()
		for _, c := range []struct {
			sql  string
			rows int64
		}{
			{"DELETE FROM parent WHERE id <= 2", 2},
			{"DELETE FROM parent", 3},
			{"UPDATE child SET parent_id = 3 WHERE parent_id = 1", 2},
			{"INSERT INTO child (parent_id) VALUES (1), (2)", 2},
			{"UPDATE parent SET id = id + 10 WHERE id = 99", 0},
		} {
			dr := db.DryRun(context.Background(), c.sql)
			if dr.Status != engine.DryRunOK || dr.Rows != c.rows {
				t.Errorf("%s: dry run %+v, want ok with %d rows", c.sql, dr, c.rows)
			}
			if after := counts(); after != before {
				t.Fatalf("%s: the dry run changed the tables: %s, before %s", c.sql, after, before)
			}
		}
		skipped := map[string]string{
			"INSERT INTO trig (a) VALUES (1)": "triggers",
			"DROP TABLE parent":               "only an INSERT, UPDATE or DELETE",
			"TRUNCATE parent":                 "only an INSERT, UPDATE or DELETE",
			"SELECT 1":                        "not a statement that changes data",
			"UPDATE parent SET id = id WHERE 1 = 1 AND id IN (SELECT 1)": "",
		}
		if e.name == "mariadb" {
			skipped["DELETE FROM plain WHERE a = 1"] = "MyISAM, an engine without transactions"
		}
		if e.name == "postgres" {
			skipped["INSERT INTO child (id, parent_id) VALUES (nextval('child_id_seq'), 1)"] = "nextval"
		}
		for sql, why := range skipped {
			dr := db.DryRun(context.Background(), sql)
			if why == "" {
				if dr.Status != engine.DryRunOK {
					t.Errorf("%s: dry run %+v, want ok", sql, dr)
				}
				continue
			}
			if dr.Status != engine.DryRunSkipped || !strings.Contains(dr.Reason, why) {
				t.Errorf("%s: dry run %+v, want skipped because of %q", sql, dr, why)
			}
		}
		if dr := db.DryRun(context.Background(), "INSERT INTO parent (id) VALUES (1)"); dr.Status != engine.DryRunFailed || dr.Reason == "" {
			t.Errorf("a dry run that breaks the primary key: %+v, want failed with the reason", dr)
		}
		if dr := db.DryRun(context.Background(), "DELETE FROM nowhere WHERE id = 1"); dr.Status != engine.DryRunFailed || !strings.Contains(dr.Reason, "nowhere") {
			t.Errorf("a dry run on a missing table: %+v, want failed naming it", dr)
		}
		if after := counts(); after != before {
			t.Fatalf("the dry runs changed the tables: %s, before %s", after, before)
		}
		if e.name == "mariadb" {
			if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM plain"); n != 2 {
				t.Errorf("the MyISAM table has %d rows, want 2", n)
			}
		}

		// The count reaches the confirmation, and the write still asks.
		c := &confirmer{}
		s := NewSet(db, c.confirm)
		wantStatus(t, execSQL(t, s, "DELETE FROM parent WHERE id = 1"), engine.StatusRejected)
		if len(c.requests) != 1 || c.requests[0].DryRun != engine.DryRunOK || c.requests[0].AffectedRows == nil || *c.requests[0].AffectedRows != 1 {
			t.Errorf("requests %+v, want one with a dry run of 1 row", c.requests)
		}
		wantStatus(t, execSQL(t, s, "INSERT INTO trig (a) VALUES (1)"), engine.StatusRejected)
		if len(c.requests) != 2 || c.requests[1].DryRun != engine.DryRunSkipped || c.requests[1].AffectedRows != nil || c.requests[1].DryRunReason == "" {
			t.Errorf("requests %+v, want the second skipped with a reason", c.requests)
		}
		if after := counts(); after != before {
			t.Fatalf("the rejected writes changed the tables: %s, before %s", after, before)
		}
	})
}

// TestDryRunSequence shows what a rollback does not undo: on PostgreSQL,
// an INSERT's dry run takes the next value of the serial's sequence, and
// the value stays taken (documented in the README).
func TestDryRunSequence(t *testing.T) {
	for _, e := range testEngines {
		if e.name != "postgres" {
			continue
		}
		src := e.source(t)
		dbtest.Exec(t, src, dryRunSchema[e.name]...)
		dbtest.Exec(t, src, "INSERT INTO parent (id) VALUES (1)", "INSERT INTO child (parent_id) VALUES (1)")
		db := openDB(t, src, engine.Options{})
		if dr := db.DryRun(context.Background(), "INSERT INTO child (parent_id) VALUES (1)"); dr.Status != engine.DryRunOK || dr.Rows != 1 {
			t.Fatalf("dry run %+v, want ok with 1 row", dr)
		}
		dbtest.Exec(t, src, "INSERT INTO child (parent_id) VALUES (1)")
		if id := dbtest.QueryInt(t, src, "SELECT max(id) FROM child"); id != 3 {
			t.Errorf("the next row got id %d, want 3: the dry run's nextval is not rolled back", id)
		}
	}
}

// TestDryRunCountsCascades: the dry run of a DELETE counts, besides its own
// rows, the rows other tables lose through ON DELETE CASCADE, on every
// engine, and the dialog says both; an allowance covers such a statement
// only within its bound, cascade included.
func TestDryRunCountsCascades(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		if e.name == "sqlite" {
			// aiq-rpc opens SQLite as SQLite opens a file, with foreign
			// keys off: no cascade runs there.
			return
		}
		dbtest.Exec(t, src, dryRunSchema[e.name]...)
		dbtest.Exec(t, src, "INSERT INTO parent (id) VALUES (1), (2), (3)")
		for range 6 {
			dbtest.Exec(t, src, "INSERT INTO child (parent_id) VALUES (1), (2), (3)")
		}
		db := openDB(t, src, engine.Options{})
		dr := db.DryRun(context.Background(), "DELETE FROM parent WHERE id = 1")
		if dr.Status != engine.DryRunOK || dr.Rows != 1 || len(dr.Cascade) != 1 || dr.Cascade[0].Removed != 6 || !strings.Contains(dr.Cascade[0].Table, "child") {
			t.Fatalf("dry run %+v, want 1 row and 6 of child removed in cascade", dr)
		}
		if n := dbtest.QueryInt(t, src, "SELECT count(*) FROM child"); n != 18 {
			t.Fatalf("child holds %d rows after the dry run, want 18", n)
		}

		c := &confirmer{answers: []guard.Decision{AllowAlways}}
		s := NewSet(db, c.confirm)
		wantStatus(t, execSQL(t, s, "DELETE FROM parent WHERE id = 1"), engine.StatusSuccess)
		req := c.requests[0]
		if want := "This DELETE would remove 1 row of parent and 6 rows of "; !strings.HasPrefix(req.DryRunText(), want) || !strings.Contains(req.DryRunText(), "(cascade)") {
			t.Errorf("dialog %q, want it to start %q and say cascade", req.DryRunText(), want)
		}
		if req.Scope != "Allow DELETE on parent, up to 10 rows at a time, for this conversation" {
			t.Errorf("scope %q", req.Scope)
		}
		// 1 + 6 rows: within the floor of 10, so the next one runs.
		wantStatus(t, execSQL(t, s, "DELETE FROM parent WHERE id = 2"), engine.StatusSuccess)
		if len(c.requests) != 1 {
			t.Errorf("a DELETE of 7 rows in all asked under an allowance of 10")
		}
		// Twelve more children make 13 rows in cascade: beyond it.
		for range 12 {
			dbtest.Exec(t, src, "INSERT INTO child (parent_id) VALUES (3)")
		}
		wantStatus(t, execSQL(t, s, "DELETE FROM parent WHERE id = 3"), engine.StatusRejected)
		if len(c.requests) != 2 || !strings.Contains(c.requests[1].DryRunText(), "more than the 10") {
			t.Errorf("a DELETE of 19 rows in cascade did not ask with the count: %+v", c.requests[1:])
		}
	})
}
