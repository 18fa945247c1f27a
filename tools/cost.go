package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// costGate asks the user before a read the engine estimates above the
// source's max_estimated_rows, as before a write, with risk "cost". It
// returns nil when the read may run, else the result that says why not.
func (s *Set) costGate(ctx context.Context, query string) *engine.StatementResult {
	rows, over := s.db.Costly(ctx, query)
	if !over {
		return nil
	}
	limit := s.db.MaxEstimatedRows()
	req := guard.ConfirmRequest{Tool: ToolExecuteSQL, SQL: query, Risk: "cost", Label: s.db.Source().Label,
		Reason: fmt.Sprintf("The database estimates that this query goes through about %s rows, above this source's limit of %s (max_estimated_rows).",
			guard.GroupThousands(int64(rows)), guard.GroupThousands(limit))}
	if s.confirm == nil {
		return s.refused(query, engine.StatusRejected,
			"This query is estimated to go through more rows than this source allows, and no one can confirm it here, so it did not run.",
			"not run: "+strings.TrimSuffix(req.Reason, ".")+"; no one can confirm it here. Narrow it (a WHERE, a LIMIT, an aggregate) instead")
	}
	return s.ask(ctx, req, sqltext.Shape{})
}

// Export runs sql, one read, for an export of all its rows (see
// WithRowSink): through the cost gate, as a read of the model's goes,
// without becoming the Set's last result. What the classifier refuses
// reaches Run, which refuses it.
func (s *Set) Export(ctx context.Context, sql string) *engine.StatementResult {
	if v, err := sqltext.Classify(sql, s.db.Dialect()); err == nil && v.Class != sqltext.Write {
		if res := s.costGate(ctx, sql); res != nil {
			return res
		}
	}
	return s.db.Run(ctx, sql, false)
}
