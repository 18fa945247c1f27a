package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// Estimate on MySQL and MariaDB: the product of the rows EXPLAIN expects
// to read from each table, as a nested loop reads them.
func (m *mysqlDB) Estimate(ctx context.Context, query string) (float64, error) {
	c, err := m.conn(ctx)
	if err != nil {
		return 0, err
	}
	// EXPLAIN runs nothing and leaves no session state but the read-only
	// mode and timeout that every run sets again: the connection is kept.
	defer engine.ReleaseSQLConn(c, true)
	if err := m.prepareSession(ctx, c, false); err != nil {
		return 0, err
	}
	rows, err := c.QueryContext(ctx, "EXPLAIN "+query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	at := -1
	for i, name := range cols {
		if strings.EqualFold(name, "rows") {
			at = i
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("EXPLAIN gave no rows column")
	}
	total := 1.0
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.NullFloat64)
		if i != at {
			vals[i] = new(any)
		}
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return 0, err
		}
		if n := vals[at].(*sql.NullFloat64); n.Valid && n.Float64 > 0 {
			total *= n.Float64
		}
	}
	return total, rows.Err()
}
