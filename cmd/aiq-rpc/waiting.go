package main

import (
	"fmt"
	"time"
)

// waitFrames are the frames of the waiting indicator, one rune each.
const waitFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// waitDelay is how long the turn is quiet before the indicator shows, so
// that a quick answer does not flicker.
const waitDelay = 300 * time.Millisecond

// waiting is the indicator drawn on a terminal's stderr while the model or
// a statement works: one line, redrawn in place, erased before anything
// else is printed. Its methods are called with the client's mu held; a
// nil *waiting draws nothing.
type waiting struct {
	on    bool
	label string
	since time.Time // when the turn last printed something
	shown bool
	frame int
}

func (w *waiting) set(on bool, label string) {
	if w == nil {
		return
	}
	w.on, w.label, w.since = on, label, time.Now()
}

// setWaiting turns the indicator on or off.
func (c *askClient) setWaiting(on bool, label string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	c.waiting.set(on, label)
}

// eraseLocked removes the indicator from the screen.
func (c *askClient) eraseLocked() {
	if w := c.waiting; w != nil {
		w.since = time.Now()
		if w.shown {
			fmt.Fprint(c.stderr, "\r\x1b[K")
			w.shown = false
		}
	}
}

// startWaiting draws the indicator until stop is called.
func (c *askClient) startWaiting() (stop func()) {
	if c.waiting == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				c.drawWaiting()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		c.mu.Lock()
		c.eraseLocked()
		c.mu.Unlock()
	}
}

func (c *askClient) drawWaiting() {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.waiting
	if !w.on || c.printed || time.Since(w.since) < waitDelay && !w.shown {
		return
	}
	frames := []rune(waitFrames)
	w.frame = (w.frame + 1) % len(frames)
	fmt.Fprintf(c.stderr, "\r\x1b[K%c %s…", frames[w.frame], w.label)
	w.shown = true
}
