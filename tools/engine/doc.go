// Package engine is what all engines share: a DB (open, run a statement
// read-only or in a write transaction, pages, timeouts, the cost estimate
// and the dry run), statement results and their model view, row sinks and
// the CSV, JSON and Markdown row files, and the catalog model (Schema,
// Table) with its cards.
//
// It may import tools/sqltext only; it must never import tools or
// tools/guard, which build on it.
package engine
