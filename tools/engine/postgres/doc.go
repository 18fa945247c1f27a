// Package postgres is the PostgreSQL engine, through pgx: connecting (its
// own small pool of idle connections, TLS as sslmode=prefer), running a
// statement in a read-only or write transaction under statement_timeout
// and stopping it with a cancel request, its notices as warnings, reading
// the catalog from pg_catalog, the cost gate's estimate from EXPLAIN
// (FORMAT JSON), and the dry run with its cascade counted from
// pg_stat_xact_user_tables. Driver is what tools registers.
//
// It may import tools/engine and tools/sqltext only; it must never import
// tools, tools/guard or another engine's folder.
package postgres
