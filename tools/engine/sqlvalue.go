package engine

import (
	"database/sql"
	"strings"
)

// SQLTypeNames returns the type names database/sql gives for the columns
// of a result (MySQL's DECIMAL, DATETIME; SQLite's declared types),
// lower-case.
func SQLTypeNames(types []*sql.ColumnType) []string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = strings.ToLower(t.DatabaseTypeName())
	}
	return names
}
