package llm

import (
	"bytes"
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

// sentBody is a request body and the count of those that still read it:
// the Model until its tries are over, and each reader given to the
// transport until it is closed.
type sentBody struct {
	data []byte
	refs atomic.Int32
	pool *bodyBuffers
}

func newSentBody(data []byte, pool *bodyBuffers) *sentBody {
	b := &sentBody{data: data, pool: pool}
	b.refs.Store(1)
	return b
}

// reader returns a reader of the body, which the body counts until it is
// closed.
func (b *sentBody) reader() io.ReadCloser {
	b.refs.Add(1)
	return &bodyReader{r: bytes.NewReader(b.data), body: b}
}

// release ends one hold on the body; the last gives its buffer back.
func (b *sentBody) release() {
	if b.refs.Add(-1) == 0 {
		b.pool.put(b.data)
	}
}

// bodyReader reads a sentBody. Its Close may come while a Read runs (the
// transport closes a body from another goroutine when a request fails):
// Close waits for it, and no Read reads the buffer after Close, so that
// the buffer can be written again at once.
type bodyReader struct {
	mu     sync.Mutex
	r      *bytes.Reader
	body   *sentBody
	closed bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, io.ErrClosedPipe
	}
	return r.r.Read(p)
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
