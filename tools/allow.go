package tools

import (
	"fmt"
	"github.com/aiq/aiq-rpc/tools/sqltext"
	"slices"
)

// AllowanceFloor is the fewest rows an allowance covers a statement for,
// however few the statement the user allowed changed: allowing a one-row
// UPDATE allows other UPDATEs of the same shape of up to 10 rows.
const AllowanceFloor = 10

// scopeOf is the sentence of an "Allow always" button for the shape s,
// bounded to maxRows rows a statement: "Allow UPDATE on orders, up to 10
// rows at a time, for this conversation".
func scopeOf(s sqltext.Shape, maxRows int64) string {
	return "Allow " + s.Text() + ", up to " + groupThousands(maxRows) + " rows at a time, for this conversation"
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

// allowances are a Set's allowances, guarded by the Set's mutex.
type allowances struct {
	list []Allowance
	next int
}

// add allows statements of shape s up to maxRows rows; an allowance of the
// same shape already there takes the larger bound.
func (a *allowances) add(s sqltext.Shape, maxRows int64) {
	for i, al := range a.list {
		if al.Shape.Covers(s) {
			if maxRows > al.MaxRows {
				a.list[i].MaxRows, a.list[i].Scope = maxRows, scopeOf(s, maxRows)
			}
			return
		}
	}
	a.next++
	a.list = append(a.list, Allowance{ID: fmt.Sprintf("a%d", a.next), Shape: s, MaxRows: maxRows, Scope: scopeOf(s, maxRows)})
}

// covering returns the allowance of shape s, if there is one.
func (a *allowances) covering(s sqltext.Shape) (Allowance, bool) {
	i := slices.IndexFunc(a.list, func(al Allowance) bool { return al.Shape.Covers(s) })
	if i < 0 {
		return Allowance{}, false
	}
	return a.list[i], true
}

// Allowances lists the Set's "Allow always" answers, oldest first.
func (s *Set) Allowances() []Allowance {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.allowed.list)
}

// Revoke forgets the allowance with that id, or every one for "all". It
// reports whether there was one to forget.
func (s *Set) Revoke(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.allowed.list)
	if id == "all" {
		s.allowed.list = nil
	} else {
		s.allowed.list = slices.DeleteFunc(s.allowed.list, func(al Allowance) bool { return al.ID == id })
	}
	return len(s.allowed.list) < n
}
