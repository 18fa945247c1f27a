package guard

import (
	"context"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// Decision is the user's answer to a ConfirmRequest.
type Decision string

// ConfirmRequest asks the user whether a statement that can change the
// database may run.
type ConfirmRequest struct {
	Tool string `json:"tool"`
	SQL  string `json:"sql"`
	// Risk is "ddl" for a statement that changes the schema or the
	// privileges, "outside" for one that reaches outside the database
	// (a server file, another database file) without changing data,
	// "write" for one that changes data, "cost" for a read the engine
	// estimates above the source's max_estimated_rows.
	Risk string `json:"risk"`
	// Reason says why the statement is a write, from Classify or from the
	// database that refused it in read-only mode.
	Reason string `json:"reason"`
	// Scope says what allow_always would cover ("Allow UPDATE on orders,
	// up to 10 rows at a time, for this conversation": the rows the dry
	// run counted, or AllowanceFloor if more); empty when the statement
	// asks every time, and allow_always then only allows it once.
	Scope string `json:"scope,omitempty"`
	// Beyond says why an allowance of the statement's shape does not
	// cover it ("Its trial run counts 40 rows, more than the 10 that ...");
	// empty when there is none.
	Beyond string `json:"beyond,omitempty"`
	// DryRun says whether the rows the statement changes were counted
	// beforehand (DryRunOK, the count in AffectedRows), or why not
	// (DryRunFailed, DryRunSkipped, with DryRunReason).
	DryRun       string `json:"dryRun,omitempty"`
	AffectedRows *int64 `json:"affectedRows,omitempty"`
	// Cascade is what the dry run found the statement does to other
	// tables through their foreign keys, a table each.
	Cascade      []engine.TableChange `json:"cascade,omitempty"`
	DryRunReason string               `json:"dryRunReason,omitempty"`
	// Label is the source's label from sources.yaml ("production"), for
	// the dialog to show; on a production source Scope is always empty.
	Label string `json:"label,omitempty"`
	// Masked says what each masked token of SQL stands for, so that the
	// user sees which rows the statement touches. It is for the user
	// only: the model never reads it.
	Masked []MaskedValue `json:"masked,omitempty"`
}

// MaskedValue is a masked token of a statement and the value bound to it.
type MaskedValue struct {
	Token string `json:"token"`
	Value string `json:"value"` // as text, as the result rows show it
}

// What says, for the user, why the statement asks first.
func (req ConfirmRequest) What() string {
	switch req.Risk {
	case "outside":
		return "This statement reaches outside the database"
	case "cost":
		return "This query is estimated to go through more rows than this source allows"
	}
	return "This statement writes to the database"
}

// Confirmer asks the user to confirm a write and returns the decision. An
// error means that no answer came; the write does not run.
type Confirmer func(ctx context.Context, req ConfirmRequest) (Decision, error)

// WithinAllowance reports whether al covers the request's statement: its
// dry run counted no more rows than al's bound. A statement whose rows
// were not counted asks.
func WithinAllowance(req ConfirmRequest, al Allowance) bool {
	return req.DryRun == engine.DryRunOK && req.AffectedRows != nil && req.countedRows() <= al.MaxRows
}

// countedRows is the rows the dry run found the statement changes, in its
// table and in cascade.
func (req ConfirmRequest) countedRows() int64 {
	var n int64
	if req.AffectedRows != nil {
		n = *req.AffectedRows
	}
	for _, c := range req.Cascade {
		n += c.Total()
	}
	return n
}

// BeyondAllowance says why al, of the request's shape, does not cover it.
func BeyondAllowance(req ConfirmRequest, al Allowance) string {
	if req.DryRun == engine.DryRunOK && req.AffectedRows != nil {
		return fmt.Sprintf("Its trial run counts %s rows, more than the %s that \"%s\" covers.",
			GroupThousands(req.countedRows()), GroupThousands(al.MaxRows), strings.TrimSuffix(al.Scope, ", for this conversation"))
	}
	return fmt.Sprintf("Its rows could not be counted beforehand, so \"%s\" does not cover it.", strings.TrimSuffix(al.Scope, ", for this conversation"))
}

// AllowanceBound is the bound of an allowance given to the request's
// statement: the rows its dry run counted, or AllowanceFloor if more.
func AllowanceBound(req ConfirmRequest) int64 {
	if n := req.countedRows(); req.DryRun == engine.DryRunOK && n > AllowanceFloor {
		return n
	}
	return AllowanceFloor
}
