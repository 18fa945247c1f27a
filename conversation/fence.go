package conversation

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"

	"github.com/aiq/aiq-rpc/tools/guard"
)

// fences wraps the tool results of a session's requests as data
// (guard.FenceWith), each with a token of its own that stays the same on
// every request that sends the result again: the requests' common part
// then stays the same text, which the request-body cache and the model's
// prompt cache reuse, and no request fences the whole history anew.
//
// A token is the HMAC-SHA256 of a per-session secret, drawn at random
// when the session is made and never saved or sent, over a count of the
// fences made, the result's position and its tool call id: no text the
// model saw can predict it, and no two results share one. A result that
// holds the token drawn for it gets the next one, so it can never close
// its own fence; a result made later that holds an older token is a new
// text, so it gets a new token too.
type fences struct {
	secret [32]byte

	mu   sync.Mutex
	made uint64 // tokens drawn
	// last holds the fenced text of each result of the last request.
	last map[resultKey]string
}

// resultKey names a tool result by its call id, its text, and n, the
// number of earlier results of the same request with the same id and text.
type resultKey struct {
	id, content string
	n           int
}

func newFences() *fences {
	f := &fences{}
	rand.Read(f.secret[:]) // never fails (crypto/rand's documented behaviour since Go 1.24)
	return f
}

// fenced returns the messages of a request with each tool result fenced,
// the results the last request sent in the fences they had there. The
// session keeps the results as they were; only what the model is sent is
// fenced.
func (f *fences) fenced(messages []Message) []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := make(map[resultKey]string, len(f.last)+2)
	var seen map[resultKey]int // only for results whose id and text repeat
	out := make([]Message, len(messages))
	for i, m := range messages {
		if m.Role == RoleTool {
			k := resultKey{id: m.ToolCallID, content: m.Content}
			if _, dup := next[k]; dup {
				if seen == nil {
					seen = map[resultKey]int{}
				}
				seen[k]++
				k.n = seen[resultKey{id: k.id, content: k.content}]
			}
			text, ok := f.last[k]
			if !ok {
				text = guard.FenceWith(m.Content, "the result of a tool call", f.tokens(i, m.ToolCallID))
			}
			next[k] = text
			m.Content = text
		}
		out[i] = m
	}
	f.last = next
	return out
}

// tokens returns the token source of the result at position pos of a
// request, with call id id. The caller holds f.mu.
func (f *fences) tokens(pos int, id string) func() string {
	return func() string {
		f.made++
		mac := hmac.New(sha256.New, f.secret[:])
		var buf [16]byte
		binary.BigEndian.PutUint64(buf[:8], f.made)
		binary.BigEndian.PutUint64(buf[8:], uint64(pos))
		mac.Write(buf[:])
		mac.Write([]byte(id))
		return hex.EncodeToString(mac.Sum(nil)[:8])
	}
}

// fencer returns the session's fences, made on first use for a session
// that was not made by NewSession or FromFile.
func (s *Session) fencer() *fences {
	if s.fences == nil {
		s.fences = newFences()
	}
	return s.fences
}
