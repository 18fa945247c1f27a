package main

import (
	"io"
	"os"
	"syscall"
)

// pollable returns stdin ready for the runtime's poller when it is a pipe
// or a socket, as an editor gives it, and a restore that undoes that.
//
// Go reads a stdin in blocking mode on a thread of its own: after an idle
// moment the request then waits for that thread to wake, and for the
// goroutine it hands the bytes to, before any work starts (about 0.2 ms
// a request through the binary). A polled stdin wakes the read loop
// directly, and a Close ends a Read blocked on it. A terminal is left as
// it is: its shell shares the flag and would not expect it.
func pollable(stdin io.Reader) (io.Reader, func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin, func() {}
	}
	info, err := f.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return stdin, func() {}
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return stdin, func() {}
	}
	// NewFile sees the flag and registers the descriptor with the poller.
	polled := os.NewFile(uintptr(fd), f.Name())
	return polled, func() { syscall.SetNonblock(fd, false) }
}
