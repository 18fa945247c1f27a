// Package sqltext reads SQL without a database: the lexer, the classifier
// (read-only or write, and why), the verdicts on statements that reach
// outside the database, the shape an allowance covers, the reserved words,
// and the stemmed terms of names and questions.
//
// It must never import another package of this module: everything else
// builds on it.
package sqltext
