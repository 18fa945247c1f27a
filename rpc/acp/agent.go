// Package acp serves the Agent Client Protocol (ACP, protocol version 1)
// over newline-delimited JSON-RPC: aiq as the database agent of any ACP
// editor. It is a front end beside package rpc over the same
// conversation.Workspace, and holds no conversation logic: it decodes the
// requests, calls the workspace, and turns its events into session/update
// notifications. The wire types and the connection are those of
// github.com/coder/acp-go-sdk.
package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// Options configure an Agent.
type Options struct {
	// Name and Version are the agentInfo of initialize.
	Name    string
	Version string
	Home    sessionio.Home
	// Resume is a session file that the first session/new continues, as
	// -s FILE does for the other commands.
	Resume string
	Log    *slog.Logger
	// CheckConfig, when set, is called before each request but initialize,
	// to read again the configuration files that changed; a problem comes
	// back through ConfigProblems.
	CheckConfig func()
}

// Agent serves one ACP client over one connection. The conversations live
// in its Workspace.
type Agent struct {
	ws      *conversation.Workspace
	opts    Options
	log     *slog.Logger
	methods map[string]method

	conn *sdk.Connection
	out  *output

	problems configProblems

	mu       sync.Mutex
	sessions map[sdk.SessionId]*session
	resume   string // consumed by the first session/new
	closing  bool   // no request starts once set
	inflight sync.WaitGroup
}

// session is an ACP session: the id the client holds and the workspace's
// session it names, with the turn that runs on it.
type session struct {
	id       sdk.SessionId
	wsID     string
	cwd      string
	commands int // requests of permission made for commands, for their ids

	mu sync.Mutex
	// made says that session/new created its file here, so that a session
	// left empty can be removed again when the client leaves.
	made      string
	cancel    context.CancelFunc // of the turn or command that runs; nil when idle
	ended     chan struct{}      // closed when it ends
	stopping  chan struct{}      // closed when it is cancelled
	callID    string             // the tool call that runs, which a permission is asked for
	callTitle string             // its card's title, which the permission request keeps
	rejectAll bool               // the user answered "reject always"
	usedIDs   map[string]bool    // the tool call ids the client was shown (see cardID)
}

// New returns an agent over ws.
func New(ws *conversation.Workspace, opts Options) *Agent {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Agent{ws: ws, opts: opts, log: opts.Log, methods: methodTable(),
		sessions: map[sdk.SessionId]*session{}, resume: opts.Resume}
}

// Serve speaks ACP over in and out until in ends or ctx is done. Then the
// turns that still run are cancelled; it waits for every request to be
// answered and saves every session with unsaved changes. It returns an
// error when a save failed.
func (a *Agent) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	a.out = &output{w: out}
	pr, pw := io.Pipe()
	a.conn = sdk.NewConnection(a.handle, a.out, pr)
	a.conn.SetLogger(a.log)
	go filter(in, pw, a.out, a.log)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
		a.log.Info("stopping", "reason", context.Cause(ctx))
	}
	pr.Close()
	return a.finish()
}

// drainLimit bounds the wait for the answers to the last requests: turns
// are cancelled by then, and end at once.
const drainLimit = 5 * time.Second

// finish ends the turns, saves what changed and removes the files of new
// sessions that were never used.
func (a *Agent) finish() error {
	// A client may close its end right after a request: the request is
	// still answered before the agent ends. The SDK has cancelled the
	// requests' contexts by now, so a turn ends at once, as cancelled.
	a.out.drain(drainLimit)
	a.mu.Lock()
	a.closing = true
	open := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	a.inflight.Wait()
	for _, s := range open {
		a.removeIfUnused(s)
	}
	saved, errs := a.ws.SaveAll(context.Background())
	for _, sv := range saved {
		a.log.Info("saved session", "path", sv.Path)
	}
	for _, err := range errs {
		a.log.Error("save session", "err", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("save sessions: %w", errs[0])
	}
	return nil
}

// removeIfUnused removes the file session/new wrote for a session that
// never got a turn: every editor makes a session whenever its panel opens,
// and the sessions folder should not fill with empty conversations.
func (a *Agent) removeIfUnused(s *session) {
	s.mu.Lock()
	made := s.made
	s.mu.Unlock()
	if made == "" {
		return
	}
	info, err := a.ws.Info(context.Background(), s.wsID)
	if err != nil || info.Turns > 0 || info.Path != made {
		return
	}
	if _, err := a.ws.CloseSession(context.Background(), s.wsID); err != nil {
		return
	}
	if err := os.Remove(made); err != nil {
		a.log.Warn("remove unused session file", "path", made, "err", err)
	}
}

// handle answers one request or notification. The SDK runs each request
// on its own goroutine and the notifications in order on one.
func (a *Agent) handle(ctx context.Context, name string, params json.RawMessage) (res any, rerr *sdk.RequestError) {
	if !a.enter() {
		return nil, &sdk.RequestError{Code: codeInternalError, Message: name + ": the agent is shutting down"}
	}
	defer a.inflight.Done()
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("panic in request", "method", name, "panic", r, "stack", string(debug.Stack()))
			res, rerr = nil, &sdk.RequestError{Code: codeInternalError, Message: fmt.Sprintf(
				"internal error in %s: %v; the agent goes on, and the session is as it was before this request", name, r)}
		}
	}()
	m, ok := a.methods[name]
	switch {
	case !ok && strings.HasPrefix(name, "_"):
		return nil, sdk.NewMethodNotFound(name) // an extension: ignored when a notification
	case !ok:
		return nil, &sdk.RequestError{Code: codeMethodNotFound, Message: fmt.Sprintf(
			"unknown method %q: this agent answers %s", name, strings.Join(methodNames(a.methods), ", "))}
	}
	if a.opts.CheckConfig != nil && name != sdk.AgentMethodInitialize {
		a.opts.CheckConfig()
	}
	res, err := m(ctx, a, name, params)
	if err != nil {
		return nil, wireError(name, err)
	}
	return res, nil
}

// enter counts a request in, unless the agent is ending; then finish
// waits for it.
func (a *Agent) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return false
	}
	a.inflight.Add(1)
	return true
}

// session returns the session the client calls id.
func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q; open it with session/new or session/load", conversation.ErrUnknownSession, id)
	}
	return s, nil
}

// start marks the session busy with a turn or a command that cancel
// stops; stop ends it. A second one is refused, as the workspace would
// refuse it, but before it can replace the first one's cancel.
//
// A prompt that comes while the one before is being cancelled waits for
// it to end: a client sends session/cancel and the next prompt at once,
// and the notification may be handled a moment after the request that
// followed it, so a prompt that finds the session busy also waits up to
// cancelGrace for a cancel to come.
func (a *Agent) start(ctx context.Context, s *session, cancel context.CancelFunc) error {
	grace := time.NewTimer(cancelGrace)
	defer grace.Stop()
	for {
		stopping, ended, err := a.tryStart(s, cancel)
		if err != nil || ended == nil {
			return err
		}
		select {
		case <-stopping:
			select {
			case <-ended:
			case <-ctx.Done():
				return ctx.Err()
			}
		case <-ended:
		case <-grace.C:
			return fmt.Errorf("prompt: %w; wait for it to finish or cancel it", conversation.ErrBusy)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// cancelGrace is how long a prompt on a busy session waits for a
// session/cancel that may be on its way.
const cancelGrace = 250 * time.Millisecond

// tryStart marks the session busy, or returns the channels of what runs
// on it: closed when it is cancelled, and when it has ended.
func (a *Agent) tryStart(s *session, cancel context.CancelFunc) (stopping, ended <-chan struct{}, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return nil, nil, fmt.Errorf("the agent is shutting down")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return s.stopping, s.ended, nil
	}
	s.cancel, s.ended, s.stopping = cancel, make(chan struct{}), make(chan struct{})
	return nil, nil, nil
}

func (a *Agent) done(s *session) {
	s.mu.Lock()
	close(s.ended)
	s.cancel, s.callID, s.callTitle, s.ended, s.stopping = nil, "", "", nil, nil
	s.mu.Unlock()
}

// stop cancels what runs on the session, if anything, and returns a
// channel closed when it has ended.
func (s *session) stop() <-chan struct{} {
	s.mu.Lock()
	cancel, ended := s.cancel, s.ended
	if s.stopping != nil {
		select {
		case <-s.stopping:
		default:
			close(s.stopping)
		}
	}
	s.mu.Unlock()
	if cancel == nil {
		ended = make(chan struct{})
		close(ended)
	} else {
		cancel()
	}
	return ended
}

// notify sends a session/update. A cancelled turn still reports how far it
// got, so the write never depends on the request's context.
func (a *Agent) notify(id sdk.SessionId, u sdk.SessionUpdate) {
	err := a.conn.SendNotification(context.Background(), sdk.ClientMethodSessionUpdate, sdk.SessionNotification{SessionId: id, Update: u})
	if err != nil {
		a.log.Warn("send session/update", "err", err)
	}
}

// say sends text as the agent's message.
func (a *Agent) say(id sdk.SessionId, text string) {
	a.notify(id, sdk.UpdateAgentMessageText(text))
}
