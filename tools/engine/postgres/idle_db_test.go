package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// TestPostgresIdleReaped: an idle PostgreSQL connection is closed once it
// has been idle for IdleTimeout.
func TestPostgresIdleReaped(t *testing.T) {
	p, err := newPostgres(dbtest.Postgres(t), engine.Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Version(context.Background()); err != nil {
		t.Fatalf("Version: %v", err)
	}
	p.mu.Lock()
	if len(p.idle) != 1 || p.reaper == nil {
		p.mu.Unlock()
		t.Fatalf("%d idle connections, reaper %v; want one, and a reaper set", len(p.idle), p.reaper)
	}
	conn := p.idle[0].conn
	p.idle[0].since = time.Now().Add(-engine.IdleTimeout)
	p.mu.Unlock()
	p.reapIdle()
	p.mu.Lock()
	left, reaper := len(p.idle), p.reaper
	p.mu.Unlock()
	if left != 0 || reaper != nil || !conn.IsClosed() {
		t.Errorf("after a minute idle: %d idle, reaper %v, closed %v; want none, none, closed", left, reaper, conn.IsClosed())
	}
}
