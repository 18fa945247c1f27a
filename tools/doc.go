// Package tools runs SQL for the model: it opens a configured data source,
// classifies each statement as read-only or a write, runs it inside the
// engine's read-only transaction unless the user confirmed it, streams the
// rows with bounds, and describes the schema.
package tools
