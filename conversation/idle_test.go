package conversation

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestLastSessionClosesIdleConnections: on PostgreSQL, a source's idle
// connection stays for the next statement while a session uses it, and
// is closed when the last session on the source ends.
func TestLastSessionClosesIdleConnections(t *testing.T) {
	src := dbtest.Postgres(t)
	var boxes SQLToolboxes
	defer boxes.Close()
	open := func() *sqlToolbox {
		box, err := boxes.Open(context.Background(), src, nil)
		require.NoError(t, err)
		return box.(*sqlToolbox)
	}
	first, second := open(), open()
	_, err := first.Run(context.Background(), "execute_sql", json.RawMessage(`{"sql":"SELECT 1"}`))
	require.NoError(t, err)
	conns := func() int64 {
		return dbtest.QueryInt(t, src, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
	}
	require.GreaterOrEqual(t, conns(), int64(1), "the idle connection waits for the next statement")
	first.end()
	first.end() // ending twice counts once
	require.GreaterOrEqual(t, conns(), int64(1), "a session is still on the source")
	second.end()
	// The server ends the backend after the client has gone.
	deadline := time.Now().Add(30 * time.Second)
	for conns() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections left after the last session ended", conns())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
