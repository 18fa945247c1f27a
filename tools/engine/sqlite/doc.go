// Package sqlite is the SQLite engine, through modernc.org/sqlite:
// opening the file (never creating it), running a statement read-only
// with PRAGMA query_only and an authorizer, or in a write transaction,
// reading the catalog from sqlite_master and the pragma functions, the
// cost gate's estimate from the full scans of EXPLAIN's program, and the
// dry run. SQLite has no statement timeout of its own: the driver
// interrupts a statement when its context ends. Driver is what tools
// registers.
//
// It may import tools/engine and tools/sqltext only; it must never import
// tools, tools/guard or another engine's folder.
package sqlite
