package conversation

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"unsafe"

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
	// last holds the fenced text of each result of the last request by
	// where its text is; byText holds the fences made, by their result's
	// call id and text, in the order they were made. A session's history
	// holds the same strings on every request, so most results are found
	// by place, without hashing their text (a megabyte at 200 turns, on
	// every request); a result whose text is made anew (scrubbed again
	// for a masked source, once a turn) is found by its text. byText
	// keeps its entries from request to request, and is rebuilt from a
	// request's results once it holds more than twice as many (the
	// history trimmed, results gone), so that each result is hashed once
	// for the many requests that send it.
	last   map[placeKey]string
	byText map[textKey][]string
}

// textKey names the tool results with a call id and a text; a request may
// have several, each with a fence of its own.
type textKey struct {
	id, content string
}

// placeKey names a tool result by its call id, where its text's bytes are
// and how many, and n, the number of earlier results of the same request
// with the same. Two strings with the same place hold the same text: a
// string's bytes never change, and the key, holding the pointer, keeps
// them from being reused.
type placeKey struct {
	id   string
	p    *byte
	size int
	n    int
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
	next := make(map[placeKey]string, len(f.last)+2)
	// used holds the fences given in this request, by where their text
	// is (each fence is one string, made once), so that no two results
	// of a request share one.
	used := make(map[*byte]bool, len(f.last)+2)
	out := make([]Message, len(messages))
	for i, m := range messages {
		if m.Role == RoleTool {
			pk := placeKey{id: m.ToolCallID, p: unsafe.StringData(m.Content), size: len(m.Content)}
			for _, dup := next[pk]; dup; _, dup = next[pk] {
				pk.n++
			}
			text, ok := f.last[pk]
			if !ok || used[unsafe.StringData(text)] {
				text = f.fromText(used, i, m)
			}
			used[unsafe.StringData(text)] = true
			next[pk] = text
			m.Content = text
		}
		out[i] = m
	}
	f.last = next
	if len(f.byText) > 2*len(next)+64 {
		f.rebuildByText(messages, out)
	}
	return out
}

// fromText returns the fenced text of m, the result at position pos of a
// request, that was not found by place: the first fence made for its call
// id and text that this request has not given yet, else a new one, kept
// in byText. The caller holds f.mu.
func (f *fences) fromText(used map[*byte]bool, pos int, m Message) string {
	k := textKey{id: m.ToolCallID, content: m.Content}
	for _, t := range f.byText[k] {
		if !used[unsafe.StringData(t)] {
			return t
		}
	}
	text := guard.FenceWith(m.Content, "the result of a tool call", f.tokens(pos, m.ToolCallID))
	if f.byText == nil {
		f.byText = map[textKey][]string{}
	}
	f.byText[k] = append(f.byText[k], text)
	return text
}

// rebuildByText makes byText hold the fences of this request's results
// only, in, fenced as out. The caller holds f.mu.
func (f *fences) rebuildByText(in, out []Message) {
	f.byText = make(map[textKey][]string, len(f.last))
	for i, m := range in {
		if m.Role == RoleTool {
			k := textKey{id: m.ToolCallID, content: m.Content}
			f.byText[k] = append(f.byText[k], out[i].Content)
		}
	}
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
