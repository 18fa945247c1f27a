package mysql

import (
	"context"
	"errors"
	"fmt"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// RunRolledBack runs the statement on a connection of its own, closed
// afterwards, in a read-write transaction that is never committed.
func (m *mysqlDB) RunRolledBack(ctx context.Context, query string, out *engine.Collector) error {
	c, err := m.conn(ctx)
	if err != nil {
		return err
	}
	defer engine.ReleaseSQLConn(c, false)
	if err := m.prepareSession(ctx, c, true); err != nil {
		return err
	}
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin the transaction: %w", err)
	}
	qerr := engine.SQLQuery(ctx, tx, query, out, mysqlConverter)
	if err := tx.Rollback(); err != nil && qerr == nil {
		return errors.Join(errors.New("roll back the EXPLAIN's transaction"), err)
	}
	return qerr
}
