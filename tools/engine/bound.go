package engine

import (
	"context"
)

// BoundKey is the context key of withBound.
type BoundKey struct{}

// Bound is a statement as the model wrote it, and the statement that runs
// instead: with placeholders and the values bound to them.
type Bound struct {
	SQL, Query string
	Args       []any
	Tokens     []string // the token of each of args
}

// WithBound returns a copy of ctx under which a DB runs query with args
// when asked to run sql, whichever path (the cost gate's question, a plain
// read) gets there.
func WithBound(ctx context.Context, b Bound) context.Context {
	return context.WithValue(ctx, BoundKey{}, b)
}

// boundFor returns the query and args that stand for sql under ctx.
func boundFor(ctx context.Context, sql string) (string, []any) {
	if b, ok := ctx.Value(BoundKey{}).(Bound); ok && b.SQL == sql {
		return b.Query, b.Args
	}
	return sql, nil
}
