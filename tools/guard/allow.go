package guard

import (
	"fmt"
	"slices"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// AllowanceFloor is the fewest rows an allowance covers a statement for,
// however few the statement the user allowed changed: allowing a one-row
// UPDATE allows other UPDATEs of the same shape of up to 10 rows.
const AllowanceFloor = 10

// ScopeOf is the sentence of an "Allow always" button for the shape s,
// bounded to maxRows rows a statement: "Allow UPDATE on orders, up to 10
// rows at a time, for this conversation".
func ScopeOf(s sqltext.Shape, maxRows int64) string {
	return "Allow " + s.Text() + ", up to " + GroupThousands(maxRows) + " rows at a time, for this conversation"
}

// Allowance is an "Allow always" answer: the statements of one shape that
// change no more rows than MaxRows run without asking for the rest of the
// session, in this process only.
type Allowance struct {
	ID    string        `json:"id"`
	Shape sqltext.Shape `json:"shape"`
	// MaxRows bounds the rows a covered statement may change, counted by
	// its dry run beforehand: the rows of the statement the user allowed,
	// or AllowanceFloor if that is more.
	MaxRows int64 `json:"maxRows"`
	// Scope is the sentence the user agreed to: "Allow UPDATE on orders,
	// up to 10 rows at a time, for this conversation".
	Scope string `json:"scope"`
}

// Allowances are a Set's allowances, guarded by the Set's mutex.
type Allowances struct {
	List []Allowance
	next int
}

// Add allows statements of shape s up to maxRows rows; an allowance of the
// same shape already there takes the larger bound.
func (a *Allowances) Add(s sqltext.Shape, maxRows int64) {
	for i, al := range a.List {
		if al.Shape.Covers(s) {
			if maxRows > al.MaxRows {
				a.List[i].MaxRows, a.List[i].Scope = maxRows, ScopeOf(s, maxRows)
			}
			return
		}
	}
	a.next++
	a.List = append(a.List, Allowance{ID: fmt.Sprintf("a%d", a.next), Shape: s, MaxRows: maxRows, Scope: ScopeOf(s, maxRows)})
}

// Covering returns the allowance of shape s, if there is one.
func (a *Allowances) Covering(s sqltext.Shape) (Allowance, bool) {
	i := slices.IndexFunc(a.List, func(al Allowance) bool { return al.Shape.Covers(s) })
	if i < 0 {
		return Allowance{}, false
	}
	return a.List[i], true
}
