package main

import (
	"fmt"
	"os"
	"os/signal"
)

// exitInterrupted is the status of a command ended by Ctrl-C, as a shell
// reports it (128 + SIGINT).
const exitInterrupted = 130

// requestCancelled is LSP's error code for a cancelled request.
const requestCancelled = -32800

// cancelOnInterrupt makes the first Ctrl-C cancel the turn; after it,
// Ctrl-C has its default effect again, so that a second one ends the
// process at once. stop undoes it.
func (c *askClient) cancelOnInterrupt() (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-sig:
			signal.Stop(sig)
			c.cancelTurn()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
		<-finished
	}
}

// wasInterrupted reports whether Ctrl-C cancelled the turn.
func (c *askClient) wasInterrupted() bool {
	select {
	case <-c.turnCtx.Done():
		return true
	default:
		return false
	}
}

// readLine reads the user's answer on the terminal; ok is false when
// Ctrl-C came first. The read goes on in its goroutine after an interrupt,
// but nothing reads the terminal after one.
func (c *askClient) readLine() (line string, ok bool) {
	read := make(chan string, 1)
	go func() {
		line, _ := c.confirmIn.ReadString('\n')
		read <- line
	}()
	select {
	case line := <-read:
		return line, true
	case <-c.turnCtx.Done():
		fmt.Fprintln(c.stderr) // end the prompt's line
		return "", false
	}
}
