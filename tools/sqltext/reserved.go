package sqltext

import ()

// isReserved reports whether name is an SQL keyword that a name must be
// quoted to be, in any of the dialects.
func IsReserved(name string) bool {
	var buf [len("CURRENT_TIMESTAMP")]byte
	if len(name) > len(buf) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	// A switch on the conversion does not allocate.
	switch string(buf[:len(name)]) {
	case "ALL", "ALTER", "AND", "ANY", "ARRAY", "AS", "ASC", "BETWEEN", "BOTH", "BY", "CASE", "CAST", "CHECK",
		"COLLATE", "COLUMN", "CONSTRAINT", "CREATE", "CROSS", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
		"CURRENT_USER", "DEFAULT", "DELETE", "DESC", "DISTINCT", "DO", "DROP", "ELSE", "END", "EXCEPT", "EXISTS",
		"FALSE", "FETCH", "FOR", "FOREIGN", "FROM", "FULL", "GRANT", "GROUP", "HAVING", "IN", "INDEX", "INNER",
		"INSERT", "INTERSECT", "INTO", "IS", "JOIN", "KEY", "KEYS", "LEADING", "LEFT", "LIKE", "LIMIT", "NATURAL",
		"NOT", "NULL", "OFFSET", "ON", "OR", "ORDER", "OUTER", "PRIMARY", "RANGE", "REFERENCES", "RIGHT", "ROW",
		"ROWS", "SELECT", "SET", "SOME", "TABLE", "THEN", "TO", "TRAILING", "TRUE", "UNION", "UNIQUE", "UPDATE",
		"USER", "USING", "VALUES", "WHEN", "WHERE", "WINDOW", "WITH":
		return true
	}
	return false
}
