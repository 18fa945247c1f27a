// Package guard is the trust layer between the model and the database:
// the "Allow always" allowances and their bounds, the masking of a
// source's columns into per-session tokens and back, the fences around
// what the database said, and the confirmation requests the user answers,
// with their texts.
//
// It may import tools/engine and tools/sqltext; it must never import
// tools, which builds on it.
package guard
