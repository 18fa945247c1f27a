package engine

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// Querier is what database/sql's Tx and Conn share for a query.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SQLQuery runs a statement through database/sql and streams its rows into
// out. converter, when not nil, makes out's value converter from the
// result's column types.
func SQLQuery(ctx context.Context, q Querier, query string, out *Collector, converter func([]*sql.ColumnType) func(int, any) any) error {
	rows, err := q.QueryContext(ctx, query, out.Args()...)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	out.SetColumns(names)
	if len(names) > 0 {
		types, err := rows.ColumnTypes()
		if err != nil {
			return err
		}
		out.SetColumnTypes(SQLTypeNames(types))
		if converter != nil {
			out.SetConverter(converter(types))
		}
	}
	dest := make([]any, len(names))
	for i := range dest {
		dest[i] = new(any)
	}
	values := func() ([]any, error) {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		vals := make([]any, len(dest))
		for i, d := range dest {
			vals[i] = *d.(*any)
		}
		return vals, nil
	}
	for rows.Next() {
		if err := out.Row(values); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// QueryEach runs query on c and calls read for each row.
func QueryEach(ctx context.Context, c *sql.Conn, query string, read func(*sql.Rows) error) error {
	rows, err := c.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := read(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CloseIdleSQL closes the idle connections of a database/sql pool, which
// keeps up to keep idle ones afterwards.
func CloseIdleSQL(db *sql.DB, keep int) {
	db.SetMaxIdleConns(0)
	db.SetMaxIdleConns(keep)
}

// ReleaseSQLConn returns c to its pool when keep is true, else closes the
// underlying connection, so that nothing the statement left in the session
// reaches the next one.
func ReleaseSQLConn(c *sql.Conn, keep bool) {
	if !keep {
		// ErrBadConn makes database/sql discard the connection.
		c.Raw(func(any) error { return driver.ErrBadConn })
	}
	c.Close()
}
