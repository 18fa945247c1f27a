package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestStdinModeRestored runs the server on a pipe whose read end the test
// shares, as a shell pipeline shares it: the server polls its stdin, yet
// the pipe is back in blocking mode when the server has gone, so that no
// other reader of it meets EAGAIN. Both front ends are checked.
func TestStdinModeRestored(t *testing.T) {
	for _, args := range [][]string{nil, {"acp"}} {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		// Fd puts the end back in blocking mode, as a shell's pipe is, and
		// would again at each call: it is taken once.
		fd := r.Fd()
		cmd := exec.Command(binary, append(args, "--home", newHome(t).Dir)...)
		cmd.Env = childEnv()
		cmd.Stdin = r
		require.NoError(t, cmd.Start())
		_, err = w.WriteString("Content-Length: 2\r\n\r\n{}")
		require.NoError(t, err)
		w.Close()
		cmd.Wait() // the input ended: the server stops, whatever its status
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		require.NoError(t, err)
		assert.Zero(t, flags&unix.O_NONBLOCK, "aiq-rpc %v left its stdin in non-blocking mode", args)
		r.Close()
	}
}
