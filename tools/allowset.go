package tools

import (
	"slices"

	"github.com/aiq/aiq-rpc/tools/guard"
)

// Allowances lists the Set's "Allow always" answers, oldest first.
func (s *Set) Allowances() []guard.Allowance {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.allowed.List)
}

// Revoke forgets the allowance with that id, or every one for "all". It
// reports whether there was one to forget.
func (s *Set) Revoke(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.allowed.List)
	if id == "all" {
		s.allowed.List = nil
	} else {
		s.allowed.List = slices.DeleteFunc(s.allowed.List, func(al guard.Allowance) bool { return al.ID == id })
	}
	return len(s.allowed.List) < n
}
