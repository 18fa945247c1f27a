package tools

import (
	"context"
	"testing"
)

// TestClassifyCasesOnDatabase runs the classifier's shared cases on each
// engine with write false. A write or an unclassifiable statement must not
// run, and the database must be unchanged after it; a read must not be
// refused by the read-only transaction, which would mean that the
// classifier let a write through.
func TestClassifyCasesOnDatabase(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		src, db := seeded(t, e, Options{})
		before := fingerprint(t, e, src)
		for _, c := range classifyCases {
			if !c.in(e.dialect) {
				continue
			}
			res := db.Run(ctx, c.sql, false)
			switch {
			case c.want == Write || c.wantErr:
				if res.Status != StatusRejected && res.Status != StatusError {
					t.Errorf("%s: %q ran with status %q, want it refused", c.name, c.sql, res.Status)
				}
			case res.Status == StatusRejected:
				t.Errorf("%s: %q, a read, was refused: %s", c.name, c.sql, res.Error)
			case res.Status != StatusSuccess:
				t.Logf("%s: %q, a read, failed on %s: %s", c.name, c.sql, e.name, res.Error)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s: %q changed the database:\n%s\nbecame\n%s", c.name, c.sql, before, after)
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
		src, db := seeded(t, e, Options{})
		before := fingerprint(t, e, src)
		for _, c := range classifyCases {
			if !c.in(e.dialect) || (c.want != Write && !c.wantErr) || c.sql == "" {
				continue
			}
			res := db.execute(ctx, c.sql, false)
			if res.Status == StatusSuccess {
				t.Logf("%s: %q runs in the read-only transaction on %s", c.name, c.sql, e.name)
			}
			if after := fingerprint(t, e, src); after != before {
				t.Fatalf("%s: %q changed the database past the classifier:\n%s\nbecame\n%s", c.name, c.sql, before, after)
			}
		}
		wantStatus(t, db.Run(ctx, "SELECT id, name FROM t", false), StatusSuccess)
	})
}
