package conversation

import (
	"context"
	"fmt"

	"github.com/aiq/aiq-rpc/tools/guard"
)

// Allowance is an "Allow always" answer of a session: statements of its
// shape run without asking while the session is open in this process, on
// its current source.
type Allowance = guard.Allowance

// allowanceKeeper is a toolbox that remembers "Allow always" answers.
type allowanceKeeper interface {
	Allowances() []Allowance
	Revoke(id string) bool
}

// Allowances lists the session's allowances, oldest first. A session
// whose tools were never opened, or that has no database, has none.
func (w *Workspace) Allowances(ctx context.Context, id string) ([]Allowance, error) {
	o, err := w.get(id)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	box := o.box
	o.mu.Unlock()
	if k, ok := box.keeper(); ok {
		return nonNil(k.Allowances()), nil
	}
	return []Allowance{}, nil
}

// Revoke forgets the session's allowance with that id, or all of them
// for "all"; later statements of its shape ask again. An id the session
// does not hold is an error wrapping ErrInvalidRequest.
func (w *Workspace) Revoke(ctx context.Context, id, allowance string) ([]Allowance, error) {
	o, err := w.get(id)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	box := o.box
	o.mu.Unlock()
	k, ok := box.keeper()
	switch {
	case ok && k.Revoke(allowance):
	case allowance == "all":
	default:
		return nil, fmt.Errorf("%w: the session has no allowance %q; list them with chat/allowances", ErrInvalidRequest, allowance)
	}
	if !ok {
		return []Allowance{}, nil
	}
	return nonNil(k.Allowances()), nil
}

func (b *sessionToolbox) keeper() (allowanceKeeper, bool) {
	if b == nil {
		return nil, false
	}
	k, ok := toolsAs[allowanceKeeper](b.Toolbox)
	return k, ok
}
