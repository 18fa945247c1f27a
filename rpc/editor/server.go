package editor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// ProtocolVersion is the version of the protocol in docs/protocol.md.
const ProtocolVersion = 1

// Options configure a Server.
type Options struct {
	// Name and Version are the serverInfo of initialize.
	Name    string
	Version string
	Home    sessionio.Home
	// ModelConfigured tells initialize whether a model is set up.
	ModelConfigured bool
	// StartupWarnings are problems found before the client connected, such
	// as a session file that could not be restored; initialize returns them
	// and they are shown with window/showMessage.
	StartupWarnings []string
	Log             *slog.Logger
	// CheckConfig, when set, is called before each request but initialize,
	// to read again the configuration files that changed; a change comes
	// back through ConfigChanged.
	CheckConfig func()
}

// Server serves one client over one connection. The conversations live in
// its Workspace; the server only decodes requests, calls the workspace and
// maps the results and errors.
type Server struct {
	ws   *conversation.Workspace
	opts Options
	log  *slog.Logger

	conn    jsonrpc2.Conn
	methods map[string]method

	initialized atomic.Bool
	shutdown    atomic.Bool
	canConfirm  atomic.Bool
	configured  atomic.Bool // a model is configured, as of the last check
	rowsOnce    atomic.Bool // the client takes each page once
	startupOnce sync.Once
	exitCode    chan int

	mu      sync.Mutex
	cancels map[jsonrpc2.ID]context.CancelFunc

	// seen is what the user saw of each session's results (seen.go).
	seen seenStore
}

// NewServer returns a server over ws.
func NewServer(ws *conversation.Workspace, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{ws: ws, opts: opts, log: opts.Log, exitCode: make(chan int, 1),
		cancels: map[jsonrpc2.ID]context.CancelFunc{}, methods: methodTable()}
	s.configured.Store(opts.ModelConfigured)
	return s
}

// Serve speaks JSON-RPC over in and out until the client sends exit, the
// input ends, the framing breaks beyond repair, or ctx is done. Whatever
// ends it, every session with unsaved changes is saved first. It returns
// the process's exit status: 0 after shutdown and exit, or after a clean
// end of input with everything saved; 1 otherwise.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.WriteCloser) int {
	st := newStream(in, out, s.log)
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithPreempter(preempter{s}), jsonrpc2.WithCodec(stdCodec{}))
	s.conn.Go(ctx, s.handle)
	code := 0
	select {
	case code = <-s.exitCode:
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.log.Error("connection ended", "err", err)
			code = 1
		}
	case <-ctx.Done():
		s.log.Info("stopping", "reason", context.Cause(ctx))
	}
	if !s.saveAll() {
		code = 1
	}
	s.closeSeen()
	s.conn.Close()
	return code
}

// saveAll saves every session with changes and logs what it did.
func (s *Server) saveAll() bool {
	saved, errs := s.ws.SaveAll(context.Background())
	for _, sv := range saved {
		s.log.Info("saved session", "session", sv.SessionID, "path", sv.Path)
	}
	for _, err := range errs {
		s.log.Error("save session", "err", err)
	}
	return len(errs) == 0
}

// handle runs one request. It is released from the read loop at once,
// so a long turn never holds up other requests, except initialize, which
// must finish before anything after it starts.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := req.Method()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in request", "method", method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError,
				"internal error in %s: %v; the server goes on, and the session is as it was before this request", method, r)
		}
	}()
	if s.initialized.Load() && method != "initialize" {
		s.sendStartupWarnings()
	}
	if !req.IsCall() {
		s.notification(ctx, method, json.RawMessage(req.Params()))
		return nil, nil
	}
	m, known := s.methods[method]
	if known && m.inline {
		// Done before the read loop reads on, so no $/cancelRequest can
		// reach it: it needs no context of its own.
		return s.call(ctx, req.ID(), method, m, json.RawMessage(req.Params()))
	}
	jsonrpc2.Async(ctx)
	// The request's own context is pooled and recycled when the handler
	// returns; the turn's context must not hang on it.
	answered := ctx
	ctx, cancel := context.WithCancel(jsonrpc2.DetachContext(ctx))
	defer cancel()
	// jsonrpc2 writes the answer once the handler returns, and then ends
	// the request's own context (which a released request keeps: it is
	// not pooled): what the call leaves for after its answer, such as the
	// collection after a large load, starts then.
	ctx = conversation.WithAfterAnswer(ctx, func(f func()) { context.AfterFunc(answered, f) })
	id := req.ID()
	s.track(id, cancel)
	defer s.untrack(id)
	return s.call(ctx, id, method, m, json.RawMessage(req.Params()))
}

// call runs the method m, the table's entry for method, whose zero value
// is an unknown method.
func (s *Server) call(ctx context.Context, id jsonrpc2.ID, method string, m method, params json.RawMessage) (any, error) {
	known := m.call != nil
	switch {
	case !s.initialized.Load() && method != "initialize":
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize: send initialize first", method)
	case s.shutdown.Load():
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: the server only accepts exit now", method)
	case !known:
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "unknown method %q: the methods are listed in the result of initialize", method)
	}
	if s.opts.CheckConfig != nil && method != "initialize" {
		s.opts.CheckConfig()
	}
	res, err := m.call(ctx, s, request{id: id, method: method, params: params})
	if err != nil {
		return nil, wireError(method, err)
	}
	return res, nil
}

// notification handles a message that wants no answer. A bad one is
// logged and dropped: there is no one to tell.
func (s *Server) notification(ctx context.Context, method string, params json.RawMessage) {
	switch method {
	case "exit":
		code := 1
		if s.shutdown.Load() {
			code = 0
		}
		select {
		case s.exitCode <- code:
		default:
		}
	case "initialized", "$/cancelRequest", "$/setTrace":
	default:
		s.log.Debug("ignored notification", "method", method)
	}
}

func (s *Server) track(id jsonrpc2.ID, cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancels[id] = cancel
	s.mu.Unlock()
}

func (s *Server) untrack(id jsonrpc2.ID) {
	s.mu.Lock()
	delete(s.cancels, id)
	s.mu.Unlock()
}

// cancel cancels the request with the given id, if it still runs.
func (s *Server) cancel(id jsonrpc2.ID) {
	s.mu.Lock()
	cancel := s.cancels[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// preempter sees $/cancelRequest ahead of the requests queued behind it.
type preempter struct{ s *Server }

func (p preempter) Preempt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != "$/cancelRequest" || req.IsCall() {
		return nil, jsonrpc2.ErrNotHandled
	}
	var params struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(json.RawMessage(req.Params()), &params) == nil {
		if id, ok := decodeID(params.ID); ok {
			p.s.cancel(id)
		}
	}
	return struct{}{}, nil
}

func decodeID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return jsonrpc2.NewNumberID(n), true
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return jsonrpc2.NewStringID(str), true
	}
	return jsonrpc2.ID{}, false
}

// idValue is an id as JSON: a number or a string.
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	str, _ := id.StringValue()
	return str
}

// showMessage tells the user something that does not stop the
// conversation, as LSP's window/showMessage: 1 error, 2 warning, 3 info.
func (s *Server) showMessage(ctx context.Context, kind int, message string) {
	params := struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}{kind, message}
	if err := s.conn.Notify(context.WithoutCancel(ctx), "window/showMessage", params); err != nil {
		s.log.Warn("show message", "err", err)
	}
}

// The window/showMessage types.
const (
	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
)
