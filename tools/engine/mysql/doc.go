// Package mysql is the MySQL engine, which serves MariaDB and seekdb too,
// through go-sql-driver/mysql: connecting, running a statement on a
// connection of its own in a read-only or write transaction under
// max_execution_time (max_statement_time on MariaDB) and stopping it with
// KILL QUERY, its warnings, reading the catalog from information_schema,
// the cost gate's estimate from EXPLAIN, the dry run, and the EXPLAIN of a
// write in a transaction always rolled back, as the server refuses it
// read-only. Driver is what tools registers.
//
// It may import tools/engine and tools/sqltext only; it must never import
// tools, tools/guard or another engine's folder.
package mysql
