package main

import (
	"io"
	"os"
	"syscall"
)

// pollable returns stdin ready for the runtime's poller when it is a pipe
// or a socket, as an editor gives it, and a restore that undoes that.
//
// Go reads a stdin in blocking mode on a thread of its own, and the server
// then reads it through a goroutine that can be abandoned (see
// editor.closable): a request waits for that thread to wake and for the bytes
// to be handed over before any work starts. A polled stdin wakes the read
// loop directly, and a Close ends a Read blocked on it. A terminal is left as
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
	// The server closes its input when it ends; the flag, which belongs to
	// the pipe's open description, is restored through the descriptor it
	// did not close.
	fd := int(f.Fd())
	dup, err := syscall.Dup(fd)
	if err != nil {
		return stdin, func() {}
	}
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return stdin, func() {}
	}
	// NewFile sees the flag and registers the descriptor with the poller.
	polled := os.NewFile(uintptr(dup), f.Name())
	return polled, func() { syscall.SetNonblock(fd, false) }
}
