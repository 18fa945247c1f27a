package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestUnrecoverableFraming sends headers after which the next message
// cannot be found. The process must save the session with unsaved changes,
// say why on stderr and exit with a non-zero status, having written only
// frames.
func TestUnrecoverableFraming(t *testing.T) {
	cases := []struct {
		name     string
		send     string
		closeIn  bool // end the input after send
		stderr   string
		exitCode int
	}{
		{name: "Content-Length over 64 MiB", send: "Content-Length: 67108865\r\n\r\n{}",
			stderr: "Content-Length 67108865 is over the 64 MiB limit; the stream cannot be resynchronised"},
		{name: "Content-Length past int64", send: "Content-Length: 99999999999999999999\r\n\r\n",
			stderr: "is over the 64 MiB limit"},
		{name: "Content-Length not a number", send: "Content-Length: abc\r\n\r\n{}",
			stderr: `Content-Length \"abc\" is not a number`},
		{name: "Content-Length empty", send: "Content-Length: \r\n\r\n{}",
			stderr: `Content-Length \"\" is not a number`},
		{name: "Content-Type without Content-Length", send: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
			stderr: "the header has no Content-Length"},
		{name: "header line over 4 KiB", send: "X-Padding: " + strings.Repeat("a", 5000) + "\r\n",
			stderr: "a header line is over 4096 bytes"},
		{name: "input ends inside a body", send: "Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"", closeIn: true,
			stderr: "read message body of 100 bytes: unexpected EOF"},
		{name: "input ends inside a header", send: "Content-Length: 10\r\n", closeIn: true,
			stderr: "unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHome(t)
			p := startProc(t, h, procOptions{})
			p.initialize(nil)
			var info conversation.Info
			p.client.Result("session/new", nil, &info)
			p.client.Result("session/setSource", map[string]string{"sessionId": info.SessionID, "source": "local"}, nil)
			require.Empty(t, h.sessionFiles(t), "nothing saved yet")
			before := len(p.client.Messages())

			p.client.Send([]byte(c.send))
			if c.closeIn {
				p.closeStdin()
			}
			code := p.wait()
			assert.NotEqual(t, 0, code, "a broken stream is a failure")
			assert.Contains(t, p.stderr.String(), c.stderr, "stderr says why")
			assert.Contains(t, p.stderr.String(), "connection ended")
			files := h.sessionFiles(t)
			require.Len(t, files, 1, "the session with changes is saved before the process ends")
			s, _, err := conversation.Load(files[0])
			require.NoError(t, err)
			assert.Equal(t, "local", s.Source)
			p.assertOnlyFrames()
			assert.Len(t, p.client.Messages(), before, "nothing is answered after a broken header")
		})
	}
}
