// Package engine is the Engine interface and what all engines share: a DB
// (open, run a statement read-only or in a write transaction, pages,
// timeouts, the cost estimate and the dry run), statement results and the
// Collector an engine streams rows into, row sinks and the CSV, JSON and
// Markdown row files, and the catalog model (Schema, Table) with its
// cards and the builders (TableSet) engines read their catalogs into.
//
// Each engine is a folder below: tools/engine/postgres, mysql and sqlite,
// each exporting a Driver. Open takes the drivers as an argument (tools
// lists them), so that this package imports none of them and no database
// driver.
//
// It may import tools/sqltext only; it must never import tools,
// tools/guard, or an engine's folder, which build on it.
package engine
