package editor

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/sessionio"
)

// slowWriter passes what the server writes on to the client, taking its
// time over a frame that holds slow, and keeps what it has passed on.
type slowWriter struct {
	w    io.WriteCloser
	slow []byte
	mu   sync.Mutex
	sent bytes.Buffer
}

func (s *slowWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, s.slow) {
		time.Sleep(80 * time.Millisecond)
	}
	n, err := s.w.Write(p)
	s.mu.Lock()
	s.sent.Write(p[:n])
	s.mu.Unlock()
	return n, err
}

func (s *slowWriter) Close() error { return s.w.Close() }

func (s *slowWriter) has(b []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Contains(s.sent.Bytes(), b)
}

// TestCleanUpAfterAnswer: what a call leaves for after its answer
// (conversation.AfterAnswer, as session/load leaves the collection of a
// large load's garbage) starts only once the answer has been written,
// though the write takes longer than the 50 ms that a front end without
// the hook waits.
func TestCleanUpAfterAnswer(t *testing.T) {
	home := sessionio.Home{Dir: t.TempDir()}
	ws := conversation.NewWorkspace(conversation.Config{Home: home, Sources: func() ([]sessionio.Source, error) { return nil, nil }})
	t.Cleanup(func() { ws.Close() })
	s := NewServer(ws, Options{Name: "aiq-rpc", Version: "test", Home: home})
	answer := []byte(`"the answer"`)
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	out := &slowWriter{w: fromServer, slow: answer}
	answered := make(chan bool, 1)
	s.methods["test/leavesCleanUp"] = method{call: func(ctx context.Context, s *Server, req request) (any, error) {
		conversation.AfterAnswer(ctx, func() { answered <- out.has(answer) })
		return "the answer", nil
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(context.Background(), toServer, out)
	}()
	c := editortest.New(t, clientIn, clientOut)
	t.Cleanup(func() { clientOut.Close(); <-done })
	c.Result("initialize", nil, nil)
	for range 3 {
		var got string
		c.Result("test/leavesCleanUp", nil, &got)
		select {
		case ok := <-answered:
			if !ok {
				t.Fatal("the clean-up started before the answer was written")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the clean-up never started")
		}
	}
}
