package llm

import (
	"sync"
	"unsafe"

	"github.com/aiq/aiq-rpc/sessionio"
)

// minCachedContent is the shortest content whose encoding is kept: shorter
// ones cost less to encode than to look up.
const minCachedContent = 256

// maxCachedBytes bounds each of the two generations of encodings kept: a
// history longer than a session file holds (10 MiB, each content twice)
// still has all its long contents' encodings.
const maxCachedBytes = 8 << 20

// encodedContents keeps the JSON encodings of the long message contents of
// recent requests. Every request of a session sends its whole history
// again, so without them a turn on 200 turns of history encodes a
// megabyte it encoded the turn before; a lookup hashes the content, far
// less work than escaping it. Encodings used lately stay: a content not in
// the current generation is looked up in the previous one, and when the
// current generation is full it becomes the previous one.
//
// A content is looked up first by where its bytes are (sameString): the
// history's messages are the same strings on every request, so most
// lookups hash two words instead of the whole content (hashing a
// megabyte of history on each request grew with it); a content made anew
// with the same text (scrubbed again, say) is found by its text.
type encodedContents struct {
	limit             int // the bytes of a generation; tests make it small
	mu                sync.Mutex
	cur, prev         map[string][]byte
	curSame, prevSame map[sameString][]byte
	curBytes          int
}

// sameString is where a string's bytes are and how many: two strings with
// the same sameString hold the same text, since a string's bytes never
// change and the key, holding the pointer, keeps them from being reused.
type sameString struct {
	p *byte
	n int
}

// appendContent appends s as a JSON string, as sessionio.AppendString does,
// to dst, the buffer of built: a long content's encoding, kept, goes in by
// reference (see builtBody). The caller holds c.mu.
func (c *encodedContents) appendContent(dst []byte, s string, built *builtBody) []byte {
	if len(s) < minCachedContent {
		return sessionio.AppendString(dst, s)
	}
	enc := c.lookup(s)
	if enc == nil {
		start := len(dst)
		dst = sessionio.AppendString(dst, s)
		enc = append([]byte(nil), dst[start:]...)
		c.put(s, sameString{unsafe.StringData(s), len(s)}, enc)
		return dst
	}
	built.refs = append(built.refs, bodyRef{at: len(dst), data: enc})
	return dst
}

// lookup returns the kept encoding of s, or nil.
func (c *encodedContents) lookup(s string) []byte {
	same := sameString{unsafe.StringData(s), len(s)}
	if enc, ok := c.curSame[same]; ok {
		return enc
	}
	if enc, ok := c.cur[s]; ok {
		// Not kept under this s's place too: a content made anew on every
		// request would add one uncounted entry a request.
		return enc
	}
	if enc, ok := c.prevSame[same]; ok {
		c.put(s, same, enc)
		return enc
	}
	if enc, ok := c.prev[s]; ok {
		c.put(s, same, enc)
		return enc
	}
	return nil
}

func (c *encodedContents) put(s string, same sameString, enc []byte) {
	if c.cur == nil || c.curBytes+len(enc) > c.limit {
		c.prev, c.cur, c.curBytes = c.cur, map[string][]byte{}, 0
		c.prevSame, c.curSame = c.curSame, map[sameString][]byte{}
	}
	c.cur[s] = enc
	c.curSame[same] = enc
	c.curBytes += len(enc)
}
