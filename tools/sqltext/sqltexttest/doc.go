// Package sqltexttest holds the classifier's shared cases, for the tests
// of tools/sqltext and for the tests that run them on real servers.
//
// It may import tools/sqltext only, and only tests import it.
package sqltexttest
