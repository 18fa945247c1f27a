// Package tools holds the tools the model calls: a Set (execute_sql,
// list_tables, describe_table, search_schema, profile_column, explain_sql,
// render_chart), their results and one-line summaries, and the demo
// source. It asks the trust layer (tools/guard) before anything that
// changes data and runs statements through tools/engine.
//
// The layers import one way: tools -> tools/guard -> tools/engine ->
// tools/sqltext, and each engine's folder (tools/engine/<name>) imports
// only tools/engine and tools/sqltext. Nothing below imports tools;
// TestLayering holds this.
package tools
