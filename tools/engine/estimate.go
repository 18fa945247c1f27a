package engine

import (
	"context"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
)

// costGateTimeout bounds the gate's own work: past it the read runs as it
// would without the gate.
const costGateTimeout = 2 * time.Second

// MaxEstimatedRows is the source's cost gate.
func (db *DB) MaxEstimatedRows() int64 {
	if n := db.Source().MaxEstimatedRows; n > 0 {
		return n
	}
	return sessionio.DefaultMaxEstimatedRows
}

// Costly returns the engine's estimate of the rows a read goes through,
// and whether it is above the source's max_estimated_rows. An estimate
// that cannot be had (an engine without one, a statement EXPLAIN refuses)
// lets the read through: it still runs read-only under the statement
// timeout.
func (db *DB) Costly(ctx context.Context, query string) (float64, bool) {
	ctx, cancel := context.WithTimeout(ctx, costGateTimeout)
	defer cancel()
	rows, err := db.eng.Estimate(ctx, query)
	if err != nil {
		return 0, false
	}
	return rows, rows > float64(db.MaxEstimatedRows())
}
