package engine

import (
	"context"
	"fmt"
)

// RowSink takes every row of a statement as it streams from the driver,
// for a whole result written out (an export), where the result itself
// keeps only its first MaxRows rows.
type RowSink interface {
	// Columns is called once, before the rows, for a statement that
	// returns rows.
	Columns(names []string)
	// Row gets one row, its values converted as the kept rows are. It
	// must not keep the slice. An error stops the statement, which fails
	// with it.
	Row(values []any) error
}

type sinkKey struct{}

// WithRowSink returns a copy of ctx under which a statement that a DB
// runs hands every row to sink, on the goroutine that reads the rows. As
// WithFirstPage, the hook rides on the context.
func WithRowSink(ctx context.Context, sink RowSink) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

func rowSink(ctx context.Context) RowSink {
	sink, _ := ctx.Value(sinkKey{}).(RowSink)
	return sink
}

// sinkRow reads and converts every row, hands it to the sink, and keeps
// the first max of them as row does.
func (c *Collector) sinkRow(values func() ([]any, error)) error {
	c.res.RowCount++
	vals, err := values()
	if err != nil {
		return fmt.Errorf("read row %d: %w", c.res.RowCount, err)
	}
	keep := len(c.res.Rows) < c.max
	row := c.scratch
	if keep || len(row) != len(vals) {
		row = make([]any, len(vals))
	}
	for i, v := range vals {
		row[i] = c.convert(i, v)
	}
	if keep {
		c.res.Rows = append(c.res.Rows, row)
	} else {
		c.res.Truncated = true
		c.scratch = row // the rows past the page need no slice of their own
	}
	return c.sink.Row(row)
}
