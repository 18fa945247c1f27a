package mcp

import (
	"context"
	"sync"
	"time"
)

// calls tracks the tool calls running, so that the end of the client's
// input or a signal stops them all at once and the server waits for them
// to be answered and logged. Its zero value is ready to use.
type calls struct {
	mu      sync.Mutex
	cancels map[*int]context.CancelFunc
	stopped bool
	running sync.WaitGroup
}

// start returns the context of a call under ctx, cancelled by stop too,
// and done, to be called when the call ends. A call that starts after
// stop is cancelled from the start, and not waited for: it runs nothing.
func (c *calls) start(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := new(int)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		cancel()
		return ctx, cancel
	}
	if c.cancels == nil {
		c.cancels = map[*int]context.CancelFunc{}
	}
	c.cancels[key] = cancel
	c.running.Add(1)
	return ctx, func() {
		c.mu.Lock()
		delete(c.cancels, key)
		c.mu.Unlock()
		cancel()
		c.running.Done()
	}
}

// open lets calls start again after a stop: a server serves its clients
// one after another.
func (c *calls) open() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = false
}

// stop cancels every call running and every call to come.
func (c *calls) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for _, cancel := range c.cancels {
		cancel()
	}
}

// wait waits, limit at the most, for the calls running to end.
func (c *calls) wait(limit time.Duration) {
	done := make(chan struct{})
	go func() {
		c.running.Wait()
		close(done)
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
