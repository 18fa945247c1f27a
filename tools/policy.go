package tools

import (
	"fmt"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// readOnly returns the result of a write on a source whose policy is
// access: read_only: refused without asking, and the model is told why.
// It returns nil on any other source.
func (s *Set) readOnly(req guard.ConfirmRequest) *engine.StatementResult {
	src := s.db.Source()
	if src.Access != sessionio.AccessReadOnly {
		return nil
	}
	what := "writes"
	if req.Risk == "outside" {
		what = "reaches outside the database"
	}
	return s.refused(req.SQL, engine.StatusRejected,
		fmt.Sprintf("The source %s is read-only (access: read_only in sources.yaml), and this statement %s, so it did not run.", src.Name, what),
		fmt.Sprintf("not run: the source %s is read-only (access: read_only in its configuration), so statements that change the database are refused without asking. Do not retry it in any form; tell the user the source is read-only", src.Name))
}
