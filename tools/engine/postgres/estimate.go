package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Estimate on PostgreSQL: the most rows the planner expects of any node
// of the plan, from EXPLAIN (never ANALYZE) in a read-only transaction.
// The top node's rows are what the read returns, which an aggregate or a
// LIMIT makes small however many rows the nodes below go through.
func (p *postgres) Estimate(ctx context.Context, query string) (float64, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return 0, err
	}
	reuse := false
	defer func() { p.release(c, reuse) }()
	tx, err := c.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, err
	}
	defer rollback(tx)
	var plan []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, pgx.QueryExecModeExec).Scan(&plan); err != nil {
		return 0, err
	}
	var out []struct {
		Plan pgPlanNode `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &out); err != nil || len(out) == 0 {
		return 0, fmt.Errorf("read the plan: %v", err)
	}
	// EXPLAIN leaves no session state to reset: a rollback is enough.
	reuse = tx.Rollback(ctx) == nil
	return out[0].Plan.mostRows(), nil
}

// pgPlanNode is a node of PostgreSQL's JSON plan, as far as the cost gate
// reads it.
type pgPlanNode struct {
	Rows  float64      `json:"Plan Rows"`
	Plans []pgPlanNode `json:"Plans"`
}

// mostRows is the largest row estimate of the node and the nodes below it.
func (n pgPlanNode) mostRows() float64 {
	most := n.Rows
	for _, child := range n.Plans {
		most = max(most, child.mostRows())
	}
	return most
}
