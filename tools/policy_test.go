package tools

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// TestSourcePolicy: on a read_only source a write is refused without
// asking; on a production source every write asks, with the label, and
// "Allow always" is never offered, so the same shape asks again.
func TestSourcePolicy(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e testEngine) {
		src := e.source(t)
		dbtest.Seed(t, src)
		readOnly := src
		readOnly.Access = sessionio.AccessReadOnly
		c := &confirmer{answers: []guard.Decision{AllowAlways, AllowAlways}}
		s := NewSet(openDB(t, readOnly, engine.Options{}), c.confirm)
		before := fingerprint(t, e, src)
		res := execSQL(t, s, "UPDATE t SET name = 'x' WHERE id = 1")
		wantStatus(t, res, engine.StatusRejected)
		if len(c.requests) != 0 {
			t.Errorf("a read_only source asked: %+v", c.requests)
		}
		if !strings.Contains(res.Error, "read-only") || !strings.Contains(mustJSON(t, res), "read-only") {
			t.Errorf("the refusal %q (model: %s) does not say the source is read-only", res.Error, mustJSON(t, res))
		}
		wantStatus(t, execSQL(t, s, "SELECT count(*) FROM t"), engine.StatusSuccess)
		if after := fingerprint(t, e, src); after != before {
			t.Errorf("a write on a read_only source changed the database")
		}

		prod := src
		prod.Label = "production"
		s = NewSet(openDB(t, prod, engine.Options{}), c.confirm)
		wantStatus(t, execSQL(t, s, "UPDATE t SET name = 'x' WHERE id = 1"), engine.StatusSuccess)
		wantStatus(t, execSQL(t, s, "UPDATE t SET name = 'y' WHERE id = 1"), engine.StatusSuccess)
		if len(c.requests) != 2 {
			t.Fatalf("%d confirmations on production, want 2: allow_always must not cover the next write", len(c.requests))
		}
		for _, req := range c.requests {
			if req.Scope != "" || req.Label != "production" {
				t.Errorf("request %+v: want no scope and the label production", req)
			}
		}
		if len(s.Allowances()) != 0 {
			t.Errorf("allowances on production: %+v", s.Allowances())
		}
	})
}
