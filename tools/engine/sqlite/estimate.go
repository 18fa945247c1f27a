package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// Estimate on SQLite: the rows the read goes through in full: the row
// count of each table it scans, multiplied by those of the scans nested
// in its loop. SQLite's planner gives no row estimate; a full scan of
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
	counts := map[string]float64{}
	for _, t := range tables {
		var n float64
		q := `SELECT count(*) FROM "` + strings.ReplaceAll(t, `"`, `""`) + `"`
		if err := c.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return 0, err
		}
		most, counts[t] = max(most, n), n
	}
	if len(tables) < 2 {
		return most, nil
	}
	// Full scans nested in another's loop are a nested-loop join: a cross
	// join of two tables under the limit reads their product. A loop is a
	// cursor's Rewind (or Last) to its last Next (or Prev); a scan run
	// once (a Once block: an automatic index, a materialized subquery)
	// costs its rows once, wherever it is.
	type loop struct {
		start, end int64
		rows       float64
		once       bool
	}
	prog, err := c.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		return 0, err
	}
	defer prog.Close()
	opened := map[int64]int64{} // cursor -> root page
	at := map[int64]int{}       // cursor -> its loop
	var loops []loop
	var onces [][2]int64
	for prog.Next() {
		var addr, p1, p2, p3, p5 int64
		var opcode string
		var p4, comment sql.NullString
		if err := prog.Scan(&addr, &opcode, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			return 0, err
		}
		switch opcode {
		case "OpenRead":
			opened[p1] = p2
		case "Once":
			onces = append(onces, [2]int64{addr, p2})
		case "Rewind", "Last":
			root, ok := opened[p1]
			if !ok {
				break
			}
			names, err := sqliteTablesOfRoots(ctx, c, map[int64]bool{root: true})
			if err != nil {
				return 0, err
			}
			l := loop{start: addr, end: addr}
			for _, n := range names {
				l.rows = max(l.rows, counts[n])
			}
			for _, o := range onces {
				l.once = l.once || o[0] < addr && addr < o[1]
			}
			at[p1], loops = len(loops), append(loops, l)
		case "Next", "Prev":
			if i, ok := at[p1]; ok {
				loops[i].end = max(loops[i].end, addr)
			}
		}
	}
	if err := prog.Err(); err != nil {
		return 0, err
	}
	// parent[j] is the innermost loop around loop j, -1 for none.
	parent := make([]int, len(loops))
	for j, l := range loops {
		parent[j] = -1
		for k, o := range loops {
			if k != j && !l.once && o.start < l.start && l.start <= o.end && (parent[j] < 0 || o.start > loops[parent[j]].start) {
				parent[j] = k
			}
		}
	}
	var cost func(i int) float64
	cost = func(i int) float64 {
		inner := 0.0
		for j := range loops {
			if parent[j] == i {
				inner += cost(j)
			}
		}
		return max(loops[i].rows, 1) * max(inner, 1)
	}
	total := 0.0
	for j := range loops {
		if parent[j] < 0 {
			total += cost(j)
		}
	}
	return max(most, total), nil
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
