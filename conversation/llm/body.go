package llm

import (
	"io"
	"sync"
	"sync/atomic"
)

// bodyBuffers keeps the buffer of a request body that was sent, for the
// next request's body: at 200 turns of history each body is a megabyte,
// allocated and zeroed twice a turn otherwise, and collected after. A
// buffer comes back only once nothing can read it any more: the Model is
// done with it and the transport has closed every reader it was given (a
// RoundTripper must close a request's body, also on errors, but may do so
// after RoundTrip returns, since the write of a body can outlast the
// answer). A transport that never closes them leaves them to the
// collector.
type bodyBuffers struct {
	mu   sync.Mutex
	free []byte
}

// get returns an empty buffer of at least size bytes.
func (p *bodyBuffers) get(size int) []byte {
	if p == nil {
		return make([]byte, 0, size)
	}
	p.mu.Lock()
	b := p.free
	p.free = nil
	p.mu.Unlock()
	if cap(b) < size {
		// Room to grow: the next request holds this one and a little
		// more, and would not fit in a buffer cut to this one's size.
		return make([]byte, 0, size+size/8)
	}
	return b[:0]
}

func (p *bodyBuffers) put(b []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if cap(b) > cap(p.free) {
		p.free = b
	}
	p.mu.Unlock()
}

// builtBody is a request body as requestBody builds it: buf, with the
// encodings of long contents that encodedContents keeps put in at their
// places. They are referred to, not copied: at 200 turns of history they
// are a megabyte, the most of a body, and copying them into buf cost
// each request more than anything else that grows with the history. An
// encoding the cache keeps is never changed, so a body may hold one the
// cache has since let go.
type builtBody struct {
	buf  []byte
	refs []bodyRef
}

// bodyRef is an encoding that goes in at offset at of buf.
type bodyRef struct {
	at   int
	data []byte
}

// parts returns the body's bytes in order, as slices of buf and of the
// encodings.
func (b *builtBody) parts() [][]byte {
	parts := make([][]byte, 0, 2*len(b.refs)+1)
	from := 0
	for _, r := range b.refs {
		if r.at > from {
			parts = append(parts, b.buf[from:r.at])
		}
		parts = append(parts, r.data)
		from = r.at
	}
	return append(parts, b.buf[from:])
}

// sentBody is a request body and the count of those that still read it:
// the Model until its tries are over, and each reader given to the
// transport until it is closed.
type sentBody struct {
	buf   []byte   // the buffer the body was built in, for the pool
	parts [][]byte // the body
	size  int64
	refs  atomic.Int32
	pool  *bodyBuffers
}

func newSentBody(b *builtBody, pool *bodyBuffers) *sentBody {
	sent := &sentBody{buf: b.buf, parts: b.parts(), pool: pool}
	for _, p := range sent.parts {
		sent.size += int64(len(p))
	}
	sent.refs.Store(1)
	return sent
}

// reader returns a reader of the body, which the body counts until it is
// closed.
func (b *sentBody) reader() io.ReadCloser {
	b.refs.Add(1)
	return &bodyReader{parts: b.parts, body: b}
}

// release ends one hold on the body; the last gives its buffer back.
func (b *sentBody) release() {
	if b.refs.Add(-1) == 0 {
		b.pool.put(b.buf)
	}
}

// bodyReader reads a sentBody. Its Close may come while a Read runs (the
// transport closes a body from another goroutine when a request fails):
// Close waits for it, and no Read reads the buffer after Close, so that
// the buffer can be written again at once.
type bodyReader struct {
	mu     sync.Mutex
	parts  [][]byte // the body's, shared: never changed
	next   int      // the part being read
	off    int      // how much of it was read
	body   *sentBody
	closed bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, io.ErrClosedPipe
	}
	n := 0
	for n < len(p) && r.next < len(r.parts) {
		c := copy(p[n:], r.parts[r.next][r.off:])
		n += c
		if r.off += c; r.off == len(r.parts[r.next]) {
			r.next, r.off = r.next+1, 0
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *bodyReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.body.release()
	}
	return nil
}
