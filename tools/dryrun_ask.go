package tools

import (
	"context"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// dryRun puts what a dry run of the request's statement found into it.
func (s *Set) dryRun(ctx context.Context, req *guard.ConfirmRequest) {
	dr := s.db.DryRun(ctx, req.SQL)
	req.DryRun, req.DryRunReason = dr.Status, dr.Reason
	if dr.Status == engine.DryRunOK {
		req.AffectedRows, req.Cascade = &dr.Rows, dr.Cascade
	}
}
