package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// Estimate on SQLite: the largest row count of a table the read goes
// through in full. SQLite's planner gives no row estimate; a full scan of
// a large table is what makes a read slow. The program EXPLAIN shows says
// which tables: a cursor opened on a table's (or one of its indexes')
// b-tree and then rewound to read from the start. The query plan's text
// names an alias rather than its table, so it is not read.
func (s *sqliteDB) Estimate(ctx context.Context, query string) (float64, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer engine.ReleaseSQLConn(c, true) // every run sets query_only again
	if _, err := c.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return 0, err
	}
	roots, err := sqliteScannedRoots(ctx, c, query)
	if err != nil || len(roots) == 0 {
		return 0, err
	}
	tables, err := sqliteTablesOfRoots(ctx, c, roots)
	if err != nil {
		return 0, err
	}
	most := 0.0
	for _, t := range tables {
		var n float64
		q := `SELECT count(*) FROM "` + strings.ReplaceAll(t, `"`, `""`) + `"`
		if err := c.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return 0, err
		}
		most = max(most, n)
	}
	return most, nil
}

// sqliteScannedRoots returns the root pages of the b-trees that the
// program of query reads from the start: OpenRead, then Rewind or Last on
// the same cursor.
func sqliteScannedRoots(ctx context.Context, c *sql.Conn, query string) (map[int64]bool, error) {
	rows, err := c.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	opened := map[int64]int64{} // cursor -> root page
	roots := map[int64]bool{}
	for rows.Next() {
		var addr, p1, p2, p3, p5 int64
		var opcode string
		var p4, comment sql.NullString
		if err := rows.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			return nil, err
		}
		switch opcode {
		case "OpenRead":
			opened[p1] = p2
		case "Rewind", "Last":
			if root, ok := opened[p1]; ok {
				roots[root] = true
			}
		}
	}
	return roots, rows.Err()
}

// sqliteTablesOfRoots names the tables whose b-trees, or whose indexes'
// b-trees, have those root pages.
func sqliteTablesOfRoots(ctx context.Context, c *sql.Conn, roots map[int64]bool) ([]string, error) {
	rows, err := c.QueryContext(ctx, "SELECT tbl_name, rootpage FROM sqlite_schema WHERE type IN ('table', 'index')")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	seen := map[string]bool{}
	var tables []string
	for rows.Next() {
		var name string
		var root sql.NullInt64
		if err := rows.Scan(&name, &root); err != nil {
			return nil, err
		}
		if root.Valid && roots[root.Int64] && !seen[name] {
			seen[name] = true
			tables = append(tables, name)
		}
	}
	return tables, rows.Err()
}
