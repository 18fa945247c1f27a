package conversation

// Internals for the external tests (package conversation_test), which
// cannot live in this package because they use modeltest.

// CheckRequest is checkRequest.
var CheckRequest = checkRequest

// CheckHistory is checkHistory.
var CheckHistory = checkHistory

// MetaExtra returns the unknown metadata keys a session keeps.
func (s *Session) MetaExtra() map[string][]byte {
	out := map[string][]byte{}
	for k, v := range s.metaExtra {
		out[k] = v
	}
	return out
}

// Clone is clone, for the tests of what a turn's copy shares.
func (s *Session) Clone() *Session { return s.clone() }
