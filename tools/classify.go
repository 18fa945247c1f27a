package tools

import "errors"

// Dialect is the SQL dialect of a source's engine.
type Dialect string

// The dialects; MySQL also covers MariaDB and seekdb.
const (
	DialectPostgres Dialect = "postgresql"
	DialectMySQL    Dialect = "mysql"
	DialectSQLite   Dialect = "sqlite"
)

// Class says whether a statement may change the database.
type Class int

// The classes of statement.
const (
	ReadOnly Class = iota
	Write
)

// Verdict is what Classify found out about one statement.
type Verdict struct {
	Class Class
	// Kind names the statement, such as "SELECT", "DELETE" or "WITH ... DELETE".
	Kind string
	// Reason says why a write is one, in words for the confirmation dialog.
	Reason string
}

// Classify reads one SQL statement. STUB: everything is a write until the
// real classifier lands.
func Classify(sql string, d Dialect) (Verdict, error) {
	if sql == "" {
		return Verdict{}, errors.New("empty statement")
	}
	return Verdict{Class: Write, Kind: "UNKNOWN", Reason: "not classified yet"}, nil
}
