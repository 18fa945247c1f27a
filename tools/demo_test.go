package tools

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// demoOpen opens the database at path read-only.
func demoOpen(t testing.TB, path string) *sql.DB {
	t.Helper()
	dsn, err := demoDSN(path, "mode=ro")
	require.NoError(t, err)
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func demoCount(t testing.TB, db *sql.DB, query string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(query).Scan(&n), query)
	return n
}

// demoChecksum hashes every row of every demo table.
func demoChecksum(t testing.TB, db *sql.DB) string {
	t.Helper()
	h := sha256.New()
	for _, table := range []string{"aiq_demo_meta", "customers", "products", "orders", "order_items"} {
		rows, err := db.Query("SELECT * FROM " + table + " ORDER BY 1, 2")
		require.NoError(t, err)
		cols, err := rows.Columns()
		require.NoError(t, err)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			require.NoError(t, rows.Scan(ptrs...))
			fmt.Fprintf(h, "%s %q\n", table, vals)
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// demoTempFiles lists what a build left in dir besides the demo.
func demoTempFiles(t testing.TB, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, ".demo-*"))
	require.NoError(t, err)
	return names
}

func TestDemoSource(t *testing.T) {
	src := DemoSource("/home/me/.aiq")
	assert.Equal(t, sessionio.Source{Name: "demo", Type: "sqlite", Database: "/home/me/.aiq/demo.sqlite"}, src)
	assert.Equal(t, DemoName, src.Name)
	assert.Equal(t, sqltext.DialectSQLite, engine.DialectOf(src.Type))
}

func TestCreateDemo(t *testing.T) {
	t.Parallel()
	// A missing folder, and characters that need escaping in a file: URI.
	dir := filepath.Join(t.TempDir(), "home dir?#%", "aiq")
	path := filepath.Join(dir, "demo.sqlite")
	start := time.Now()
	require.NoError(t, CreateDemo(context.Background(), path))
	t.Logf("built in %v", time.Since(start))

	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())
	info, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Empty(t, demoTempFiles(t, dir))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the demo, no journal")

	db := demoOpen(t, path)
	assert.Equal(t, 200, demoCount(t, db, "SELECT count(*) FROM customers"))
	assert.Equal(t, 50, demoCount(t, db, "SELECT count(*) FROM products"))
	assert.Equal(t, 2000, demoCount(t, db, "SELECT count(*) FROM orders"))
	items := demoCount(t, db, "SELECT count(*) FROM order_items")
	assert.InDelta(t, 5000, items, 300)
	assert.Equal(t, demoVersion, demoCount(t, db, "SELECT value FROM aiq_demo_meta WHERE key = 'version'"))

	// Orders fall in the 90 days before the demo's today, in id order, and
	// recent ones exist for "the last 3 days".
	var first, last string
	require.NoError(t, db.QueryRow("SELECT min(ordered_at), max(ordered_at) FROM orders").Scan(&first, &last))
	assert.GreaterOrEqual(t, first, "2026-08-03 00:00:00")
	assert.Less(t, last, "2026-11-01 00:00:00")
	assert.Zero(t, demoCount(t, db, "SELECT count(*) FROM orders a JOIN orders b ON b.id = a.id + 1 WHERE b.ordered_at < a.ordered_at"))
	assert.Positive(t, demoCount(t, db, "SELECT count(*) FROM orders WHERE ordered_at >= datetime('2026-11-01', '-3 days')"))
	assert.Equal(t, 4, demoCount(t, db, "SELECT count(DISTINCT status) FROM orders"))
	assert.Zero(t, demoCount(t, db, "SELECT count(*) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.created_at > o.ordered_at"))
	assert.Positive(t, demoCount(t, db, "SELECT count(*) FROM products WHERE stock = 0"))

	// Every reference holds.
	rows, err := db.Query("PRAGMA foreign_key_check")
	require.NoError(t, err)
	assert.False(t, rows.Next(), "a broken foreign key")
	rows.Close()
	assert.Equal(t, 3, demoCount(t, db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'"))
}

// A second call finds the demo and leaves the file alone.
func TestCreateDemoTwice(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	require.NoError(t, CreateDemo(context.Background(), path))
	// An old time, so that a rewrite shows whatever the clock's resolution.
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(path, old, old))
	before, err := os.Stat(path)
	require.NoError(t, err)

	require.NoError(t, CreateDemo(context.Background(), path))
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "the file was replaced")
	assert.True(t, after.ModTime().Equal(old), "the file was written: %v", after.ModTime())
}

// Two builds hold the same rows.
func TestCreateDemoDeterministic(t *testing.T) {
	t.Parallel()
	a := filepath.Join(t.TempDir(), "demo.sqlite")
	b := filepath.Join(t.TempDir(), "demo.sqlite")
	require.NoError(t, CreateDemo(context.Background(), a))
	require.NoError(t, CreateDemo(context.Background(), b))
	assert.Equal(t, demoChecksum(t, demoOpen(t, a)), demoChecksum(t, demoOpen(t, b)))
	assert.Equal(t, demoRows(), demoRows())
}

// Racing calls all succeed and leave one complete demo.
func TestCreateDemoConcurrent(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "demo.sqlite")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = CreateDemo(context.Background(), path) })
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	assert.Empty(t, demoTempFiles(t, dir))
	db := demoOpen(t, path)
	assert.Equal(t, 2000, demoCount(t, db, "SELECT count(*) FROM orders"))
	assert.Equal(t, "ok", func() string {
		var s string
		require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&s))
		return s
	}())
}

// A file that is not the demo is the user's: it is never replaced.
func TestCreateDemoKeepsOtherFiles(t *testing.T) {
	t.Parallel()
	sqliteFile := func(t *testing.T, path string) {
		dsn, err := demoDSN(path, "")
		require.NoError(t, err)
		db, err := sql.Open("sqlite", dsn)
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
		require.NoError(t, err)
	}
	tests := []struct {
		name  string
		make  func(t *testing.T, path string)
		cause string
	}{
		{"text", func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, []byte("hello"), 0o600)) }, "not a database"},
		{"empty", func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, nil, 0o600)) }, "no such table"},
		{"other database", sqliteFile, "no such table"},
		{"folder", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o700)) }, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "demo.sqlite")
			tt.make(t, path)
			before, err := os.Stat(path)
			require.NoError(t, err)
			var content []byte
			if before.Mode().IsRegular() {
				content, err = os.ReadFile(path)
				require.NoError(t, err)
			}

			err = CreateDemo(context.Background(), path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "create demo database "+path+": the file exists and is not an aiq demo database")
			assert.Contains(t, err.Error(), tt.cause)
			assert.Contains(t, err.Error(), "move it away")

			after, err := os.Stat(path)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before, after))
			if before.Mode().IsRegular() {
				got, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.Equal(t, content, got)
			}
			assert.Empty(t, demoTempFiles(t, dir))
		})
	}
}

// An older demo is ours, and replaced.
func TestCreateDemoReplacesOldVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "demo.sqlite")
	dsn, err := demoDSN(path, "")
	require.NoError(t, err)
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	_, err = db.Exec("CREATE TABLE aiq_demo_meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO aiq_demo_meta VALUES ('version', '0')")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	require.NoError(t, CreateDemo(context.Background(), path))
	assert.Equal(t, demoVersion, demoCount(t, demoOpen(t, path), "SELECT value FROM aiq_demo_meta WHERE key = 'version'"))
}

// A cancelled build leaves nothing behind.
func TestCreateDemoCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.sqlite")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := CreateDemo(ctx, path)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "create demo database "+path)
	assert.NoFileExists(t, path)
	assert.Empty(t, demoTempFiles(t, dir))
}

func BenchmarkCreateDemo(b *testing.B) {
	dir := b.TempDir()
	n := 0
	for b.Loop() {
		n++
		if err := CreateDemo(context.Background(), filepath.Join(dir, strconv.Itoa(n), "demo.sqlite")); err != nil {
			b.Fatal(err)
		}
	}
}
