package tools

import (
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestPostgresIdleReaped: an idle PostgreSQL connection is closed once it
// has been idle for idleTimeout, and one used since is kept.
func TestPostgresIdleReaped(t *testing.T) {
	db := openDB(t, dbtest.Postgres(t), Options{})
	if res := execSQL(t, NewSet(db, nil), "SELECT 1"); res.Status != StatusSuccess {
		t.Fatalf("SELECT 1: %s %s", res.Status, res.Error)
	}
	p := db.eng.(*postgres)
	p.mu.Lock()
	if len(p.idle) != 1 || p.reaper == nil {
		p.mu.Unlock()
		t.Fatalf("%d idle connections, reaper %v; want one, and a reaper set", len(p.idle), p.reaper)
	}
	conn := p.idle[0].conn
	p.idle[0].since = time.Now().Add(-idleTimeout)
	p.mu.Unlock()
	p.reapIdle()
	p.mu.Lock()
	left, reaper := len(p.idle), p.reaper
	p.mu.Unlock()
	if left != 0 || reaper != nil || !conn.IsClosed() {
		t.Errorf("after a minute idle: %d idle, reaper %v, closed %v; want none, none, closed", left, reaper, conn.IsClosed())
	}
}
