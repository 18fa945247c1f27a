package editor

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
)

// textFrame is the longest streamed text waits to be sent with the text
// after it: one display frame. Text that comes after a quiet frame goes
// out at once, so the first words of an answer are never held; a fast
// stream is sent at most once a frame, which is all an editor can show.
const textFrame = 16 * time.Millisecond

// maxTextBuffered sends the text at once when this much has gathered.
const maxTextBuffered = 4 << 10

// progress sends a turn's events as chat/progress notifications, text
// coalesced, and thought text apart from it.
type progress struct {
	s         *Server
	sessionID string
	requestID any

	mu       sync.Mutex
	text     strings.Builder
	kind     string // of the text gathered: text or thought
	timer    *time.Timer
	lastText time.Time // when text was last sent
	closed   bool
	// rowsOnce leaves out the rows a rows notification already sent;
	// paged holds the calls that sent one.
	rowsOnce bool
	paged    map[string]bool
}

func newProgress(s *Server, sessionID string, requestID any) *progress {
	return &progress{s: s, sessionID: sessionID, requestID: requestID, rowsOnce: s.rowsOnce.Load(), paged: map[string]bool{}}
}

type progressParams struct {
	SessionID string `json:"sessionId"`
	RequestID any    `json:"requestId"`
	conversation.Event
	// Statement shadows the event's, so that rows already sent can be
	// left out (see rowsonce.go).
	Statement *sentStatement `json:"statement,omitempty"`
}

func (p *progress) event(e conversation.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if e.Kind == conversation.EventText || e.Kind == conversation.EventThought {
		if p.kind != e.Kind {
			p.flushLocked()
			p.kind = e.Kind
		}
		p.addText(e.Text)
		return
	}
	p.flushLocked()
	p.send(e)
}

// addText sends text at once when no text went out in the last frame,
// else gathers it until the frame has passed. Text that comes after the
// frame's end goes out with what waited, ahead of a timer that is late.
func (p *progress) addText(text string) {
	p.text.WriteString(text)
	wait := textFrame - time.Since(p.lastText)
	if wait <= 0 || p.text.Len() >= maxTextBuffered {
		p.flushLocked()
		return
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, p.flush)
	}
}

func (p *progress) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.flushLocked()
	}
}

func (p *progress) flushLocked() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.text.Len() == 0 {
		return
	}
	text := p.text.String()
	p.text.Reset()
	p.send(conversation.Event{Kind: p.kind, Text: text})
	p.lastText = time.Now()
}

// send writes one notification. It runs under p.mu, so notifications keep
// their order; the write does not wait for the client.
func (p *progress) send(e conversation.Event) {
	params := progressParams{SessionID: p.sessionID, RequestID: p.requestID, Event: e}
	if st := e.Statement; st != nil {
		params.Statement = withRows(*st)
		switch {
		case e.Kind == conversation.EventRows:
			p.paged[e.CallID] = true
		case p.rowsOnce && e.Kind == conversation.EventToolResult && p.paged[e.CallID]:
			params.Statement = withoutRows(*st)
		}
	}
	// A cancelled turn still reports how far it got.
	if err := p.s.conn.Notify(context.Background(), "chat/progress", params); err != nil {
		p.s.log.Warn("send progress", "err", err)
	}
}

// close sends what is left; later events are dropped.
func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.flushLocked()
		p.closed = true
	}
}
