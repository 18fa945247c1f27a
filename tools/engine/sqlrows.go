package engine

import (
	"context"
	"database/sql"
)

// querier is what database/sql's Tx and Conn share for a query.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// sqlQuery runs a statement through database/sql and streams its rows into
// out. converter, when not nil, makes out's value converter from the
// result's column types.
func sqlQuery(ctx context.Context, q querier, query string, out *collector, converter func([]*sql.ColumnType) func(int, any) any) error {
	rows, err := q.QueryContext(ctx, query, out.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return err
	}
	out.setColumns(names)
	if len(names) > 0 {
		types, err := rows.ColumnTypes()
		if err != nil {
			return err
		}
		out.res.ColumnTypes = sqlTypeNames(types)
		if converter != nil {
			out.convert = converter(types)
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
		if err := out.row(values); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}
