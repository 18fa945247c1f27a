package conversation

import (
	"context"
	"runtime/debug"
	"sync"
	"time"
)

// largeSession is the size of a session's texts from which closing or
// clearing it gives its memory back to the system at once.
const largeSession = 1 << 20

// memoryReturner gives the memory of sessions that are gone back to the
// operating system. Go's runtime returns free memory only slowly by itself,
// and not at all until its next collection, which an idle server may not
// run for minutes: an editor left open would keep the memory of its worst
// moment. debug.FreeOSMemory collects and returns everything free at once;
// it costs a collection (a few milliseconds of CPU for each 10 MiB still
// in use), so it runs after a large session goes, never on the request's
// path, and the releases asked for while one runs share one more run.
type memoryReturner struct {
	mu      sync.Mutex
	running bool
	again   bool
}

// answerTime is how long a release that a load asks for waits when the
// front end cannot say when its answer is out (see AfterAnswer): the
// load's answer, which takes well under a millisecond to write, goes out
// first, and the collection (several milliseconds of CPU after a 10 MiB
// load) does not compete with the load for the machine's cores while it
// is still answering.
const answerTime = 50 * time.Millisecond

type afterAnswerKey struct{}

// WithAfterAnswer returns ctx with the front end's way of running work
// once the request of ctx has been answered: after(f) starts f when the
// answer has been written. The workspace starts the clean-up that a
// request leaves (the collection after a large session's load) that way,
// so that the answer goes out before it.
func WithAfterAnswer(ctx context.Context, after func(f func())) context.Context {
	return context.WithValue(ctx, afterAnswerKey{}, after)
}

// AfterAnswer starts f once the request of ctx has been answered: through
// the front end's WithAfterAnswer, else answerTime from now.
func AfterAnswer(ctx context.Context, f func()) {
	if after, ok := ctx.Value(afterAnswerKey{}).(func(func())); ok {
		after(f)
		return
	}
	time.AfterFunc(answerTime, f)
}

// releaseAfterAnswer is release, once the request of ctx has been
// answered.
func (r *memoryReturner) releaseAfterAnswer(ctx context.Context) {
	AfterAnswer(ctx, r.release)
}

// release returns free memory to the system, in the background.
func (r *memoryReturner) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running {
		r.again = true
		return
	}
	r.running = true
	go r.run()
}

func (r *memoryReturner) run() {
	for {
		debug.FreeOSMemory()
		r.mu.Lock()
		if !r.again {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.again = false
		r.mu.Unlock()
	}
}

// ReturnMemory gives the memory that is free back to the system, in the
// background. The workspace does so itself when a large session is
// loaded, cleared or closed; a front end calls it after work of its own
// that leaves much garbage, such as replaying a large session.
func (w *Workspace) ReturnMemory() {
	w.memory.release()
}

// textSize is about the memory a session's messages hold: the bytes of
// their texts.
func (s *Session) textSize() int {
	n := len(s.SystemPrompt)
	for _, m := range s.History {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Function.Arguments)
		}
	}
	for _, m := range s.Legacy {
		n += len(m.Content)
	}
	return n
}
