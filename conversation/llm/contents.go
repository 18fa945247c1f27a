package llm

import (
	"sync"

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
type encodedContents struct {
	limit     int // the bytes of a generation; tests make it small
	mu        sync.Mutex
	cur, prev map[string][]byte
	curBytes  int
}

// appendContent appends s as a JSON string, as sessionio.AppendString does.
// The caller holds c.mu.
func (c *encodedContents) appendContent(dst []byte, s string) []byte {
	if len(s) < minCachedContent {
		return sessionio.AppendString(dst, s)
	}
	if enc, ok := c.cur[s]; ok {
		return append(dst, enc...)
	}
	if enc, ok := c.prev[s]; ok {
		c.put(s, enc)
		return append(dst, enc...)
	}
	start := len(dst)
	dst = sessionio.AppendString(dst, s)
	c.put(s, append([]byte(nil), dst[start:]...))
	return dst
}

func (c *encodedContents) put(s string, enc []byte) {
	if c.cur == nil || c.curBytes+len(enc) > c.limit {
		c.prev, c.cur, c.curBytes = c.cur, map[string][]byte{}, 0
	}
	c.cur[s] = enc
	c.curBytes += len(enc)
}
