package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"

	"github.com/aiq/aiq-rpc/conversation"
)

func askFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolVar(&f.json, "json", false, "print the turn's result, or its error, as JSON")
}

// runAsk runs one turn through the server, as an editor would, over an
// in-process pipe pair: the terminal is one more client, not a second code
// path.
func runAsk(ctx context.Context, e env, f flags, args []string) int {
	c := &askClient{out: e.stdout, stderr: e.stderr, json: f.json, confirmIn: confirmInput(e.stdin, args)}
	if isTerminal(e.stderr) {
		c.waiting = &waiting{}
		c.dim = true
	}
	c.turnCtx, c.cancelTurn = context.WithCancel(ctx)
	defer c.cancelTurn()
	question, err := askQuestion(e.stdin, args)
	if err != nil {
		c.fail(err)
		return 2
	}
	// The client opens the -s session itself, to report a file it cannot
	// open as an error rather than start a new session in its place.
	session := f.session
	f.session = ""
	a, err := setup(ctx, e, f, setupOptions{clientShowsWarnings: true})
	if err != nil {
		c.fail(err)
		return 1
	}
	defer a.close()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan int, 1)
	go func() { served <- a.server.Serve(ctx, toServer, fromServer) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeConn{toClient, fromClient}))
	conn.Go(ctx, c.handle)
	stop := c.startWaiting()
	stopSignals := c.cancelOnInterrupt()
	code := c.ask(ctx, conn, session, question)
	stopSignals()
	stop()
	conn.Close()
	if status := <-served; code == 0 {
		code = status
	}
	return code
}

// askQuestion is the question of the command line, or stdin for "-".
func askQuestion(stdin io.Reader, args []string) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("give a question, or - to read it from stdin")
	}
	if len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return "", fmt.Errorf("read the question from stdin: %w", err)
		}
		question := strings.TrimSpace(string(data))
		if question == "" {
			return "", fmt.Errorf("stdin held no question")
		}
		return question, nil
	}
	question := strings.Join(args, " ")
	if strings.TrimSpace(question) == "" {
		return "", fmt.Errorf("the question is empty; give a question, or - to read it from stdin")
	}
	return question, nil
}

// confirmInput is where the user answers a confirmation or a menu: the
// terminal, when stdin is one and does not carry the question.
func confirmInput(stdin io.Reader, args []string) *bufio.Reader {
	if len(args) == 1 && args[0] == "-" || !isTerminal(stdin) {
		return nil
	}
	return bufio.NewReader(stdin)
}

// isTerminal reports whether v is a terminal, not merely a character
// device such as /dev/null.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// askClient is the terminal's side of the connection. Its output goes
// through mu: the waiting indicator draws from its own goroutine.
type askClient struct {
	out, stderr io.Writer
	json        bool
	confirmIn   *bufio.Reader

	// turnCtx is cancelled by the first Ctrl-C (cancelTurn), which
	// cancels the turn.
	turnCtx    context.Context
	cancelTurn context.CancelFunc

	// modelConfigured and sources are initialize's: without a model, the
	// server's error says what a question lacks.
	modelConfigured bool
	sources         []sourceChoice

	mu      sync.Mutex
	printed bool // text printed on stdout since the last newline
	// thinking: the model's reasoning is being printed on stderr, dim when
	// dim, and thoughtOpen: its last line has no newline yet.
	thinking, thoughtOpen, dim bool
	unsaved                    bool     // the turn ran but could not be saved
	waiting                    *waiting // nil when stderr is not a terminal
}

func (c *askClient) ask(ctx context.Context, conn jsonrpc2.Conn, session, question string) int {
	init := map[string]any{
		"clientInfo":   map[string]string{"name": "aiq-rpc ask"},
		"capabilities": map[string]bool{"confirm": c.confirmIn != nil},
	}
	var initRes struct {
		ModelConfigured bool           `json:"modelConfigured"`
		Sources         []sourceChoice `json:"sources"`
	}
	if _, err := conn.Call(ctx, "initialize", init, &initRes); err != nil {
		return c.fail(err)
	}
	c.modelConfigured, c.sources = initRes.ModelConfigured, initRes.Sources
	code := c.turn(ctx, conn, session, question)
	var shut json.RawMessage
	switch _, err := conn.Call(ctx, "shutdown", nil, &shut); {
	case err == nil || code != 0:
	case c.unsaved:
		code = 1 // shutdown failed to save it again; the user was told once
	default:
		code = c.fail(err)
	}
	conn.Notify(ctx, "exit", nil)
	return code
}

// turn opens the session given, or a new one, and asks the question in it.
// A Ctrl-C ends the wait for its answer and cancels it on the server, as
// an editor's Cancel does.
func (c *askClient) turn(ctx context.Context, conn jsonrpc2.Conn, session, question string) int {
	var id string
	var err error
	if session != "" {
		id, err = c.open(c.turnCtx, conn, session)
	} else {
		id, err = c.start(c.turnCtx, conn)
	}
	if err != nil {
		return c.failOrCancelled(ctx, err)
	}
	params := map[string]string{"query": question, "sessionId": id}
	c.setWaiting(true, "waiting for the model")
	var raw json.RawMessage
	callID, err := conn.Call(c.turnCtx, "chat/turn", params, &raw)
	c.setWaiting(false, "")
	if err != nil {
		if n, ok := callID.Number(); ok && c.wasInterrupted() {
			conn.Notify(ctx, "$/cancelRequest", map[string]int64{"id": n})
		}
		return c.failOrCancelled(ctx, err)
	}
	var ans conversation.Answer
	if err := unmarshalNumbers(raw, &ans); err != nil {
		return c.fail(fmt.Errorf("read the answer: %w", err))
	}
	c.report(ans)
	return 0
}

// unmarshalNumbers decodes data into v, keeping numbers in rows as
// json.Number: a float64 would print 123456789 as 1.23456789e+08 and round
// integers beyond 2^53.
func unmarshalNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// failOrCancelled reports err, or the cancellation when Ctrl-C caused it.
func (c *askClient) failOrCancelled(ctx context.Context, err error) int {
	if !c.wasInterrupted() || ctx.Err() != nil {
		return c.fail(err)
	}
	c.fail(&jsonrpc2.Error{Code: requestCancelled, Message: "Cancelled; the session is as it was before the question."})
	return exitInterrupted
}

// loaded is the part of session/load's result the terminal uses.
type loaded struct {
	SessionID       string         `json:"sessionId"`
	Source          string         `json:"source"`
	SourceAvailable bool           `json:"sourceAvailable"`
	Warnings        []string       `json:"warnings"`
	Sources         []sourceChoice `json:"sources"`
}

// sourceChoice is a configured data source as the menu shows it.
type sourceChoice struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// start opens the new session the question goes to. When sources are
// configured but none is chosen (no --source, and more than the demo
// database), the user picks one on a terminal, as in the AIQ CLI;
// elsewhere the question goes without a database, and a warning says how
// to choose one (without a model, the server's error says it).
func (c *askClient) start(ctx context.Context, conn jsonrpc2.Conn) (string, error) {
	var info conversation.Info
	if _, err := conn.Call(ctx, "session/new", map[string]string{}, &info); err != nil {
		return "", err
	}
	switch {
	case info.Source != "" || len(c.sources) == 0:
		return info.SessionID, nil
	case c.confirmIn == nil:
		if c.modelConfigured {
			names := make([]string, len(c.sources))
			for i, src := range c.sources {
				names[i] = src.Name
			}
			c.warn(fmt.Sprintf("No data source was chosen, so this question goes without a database; choose one with --source NAME (%s).", strings.Join(names, ", ")))
		}
		return info.SessionID, nil
	}
	if source := c.pickSource("Ask with:", c.sources); source != "" {
		return info.SessionID, setSource(ctx, conn, info.SessionID, source)
	}
	return info.SessionID, nil
}

// setSource puts session id on source; "" is no database.
func setSource(ctx context.Context, conn jsonrpc2.Conn, id, source string) error {
	_, err := conn.Call(ctx, "session/setSource", map[string]string{"sessionId": id, "source": source}, nil)
	return err
}

// open loads the session file at path. When its source is gone, the user
// picks another on a terminal, as in the AIQ CLI; elsewhere the session
// goes on without a database.
func (c *askClient) open(ctx context.Context, conn jsonrpc2.Conn, path string) (string, error) {
	var res loaded
	if _, err := conn.Call(ctx, "session/load", map[string]string{"path": path}, &res); err != nil {
		return "", err
	}
	for _, w := range res.Warnings {
		c.warn(w)
	}
	if res.SourceAvailable {
		return res.SessionID, nil
	}
	source := ""
	if c.confirmIn != nil {
		source = c.pickSource("Continue the session with:", res.Sources)
	}
	if err := setSource(ctx, conn, res.SessionID, source); err != nil {
		return "", err
	}
	return res.SessionID, nil
}

// pickSource asks which of sources the session goes on with, under title;
// Enter, or an answer that is not on the menu, is no database.
func (c *askClient) pickSource(title string, sources []sourceChoice) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	fmt.Fprintf(c.stderr, "%s\n", title)
	for i, s := range sources {
		fmt.Fprintf(c.stderr, "  %d) %s (%s)\n", i+1, s.Name, s.Type)
	}
	none := len(sources) + 1
	fmt.Fprintf(c.stderr, "  %d) no database\nChoice [%d]: ", none, none)
	line, _ := c.readLine()
	n, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || n < 1 || n > len(sources) {
		return ""
	}
	return sources[n-1].Name
}

// report prints the end of a turn: its warnings and where it was saved.
func (c *askClient) report(ans conversation.Answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(ans)
		return
	}
	c.endThoughtLocked()
	c.endLineLocked()
	c.unsaved = ans.SavedTo == "" && ans.StopReason != conversation.StopCancelled
	for _, w := range ans.Warnings {
		// The server said so with window/showMessage too, for the editors
		// that show no warnings of the answer.
		if c.unsaved && strings.HasPrefix(w, "The turn was not saved: ") {
			continue
		}
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	if ans.StopReason == conversation.StopCancelled {
		fmt.Fprintln(c.out, "(cancelled)")
	}
	if t := ans.Trimmed; t != nil {
		fmt.Fprintf(c.stderr, "note: the session keeps at most %d turns (--history-limit): kept the last %d of %d turns\n", t.Kept, t.Kept, t.Of)
	}
	if ans.SavedTo != "" {
		fmt.Fprintf(c.out, "\nCurrent session saved to %s\n%s\n", ans.SavedTo, continueHint(ans.SavedTo))
	}
}

// continueHint names both ways to go on with a session.
func continueHint(path string) string {
	return fmt.Sprintf("Continue it with 'aiq -s %s' (the AIQ CLI) or 'aiq-rpc ask -s %s QUESTION'.", path, path)
}

// fail reports err, as JSON on stdout with --json, and returns the exit
// status 1. A server error is its message, the sentence written for the
// user; its data stays for --json and the logs.
func (c *askClient) fail(err error) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	c.endLineLocked()
	wire := &jsonrpc2.Error{Message: err.Error()}
	errors.As(err, &wire)
	if c.json {
		type jsonError struct {
			Code    jsonrpc2.Code   `json:"code,omitempty"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		}
		e := jsonError{Code: wire.Code, Message: wire.Message}
		if wire.Data != nil {
			e.Data = json.RawMessage(wire.Data)
		}
		enc := json.NewEncoder(c.out)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]jsonError{"error": e})
		return 1
	}
	fmt.Fprintf(c.stderr, "aiq-rpc ask: %s\n", wire.Message)
	return 1
}

// warn prints one warning on stderr.
func (c *askClient) warn(msg string) {
	c.note(messageWarning, msg)
}

// The message types of window/showMessage, as in LSP.
const (
	messageError   = 1
	messageWarning = 2
)

// note prints a message of the server on stderr, labelled by its type as
// psql does ("error:", "warning:"); information goes unlabelled.
func (c *askClient) note(kind int, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	c.endLineLocked()
	switch kind {
	case messageError:
		fmt.Fprintf(c.stderr, "error: %s\n", msg)
	case messageWarning:
		fmt.Fprintf(c.stderr, "warning: %s\n", msg)
	default:
		fmt.Fprintln(c.stderr, msg)
	}
}

func (c *askClient) endLineLocked() {
	if c.printed {
		fmt.Fprintln(c.out)
		c.printed = false
	}
}

// handle takes the server's notifications and its confirmation requests.
func (c *askClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "chat/progress":
		var p conversation.Event
		// After a Ctrl-C, what the cancelled turn still sends is not shown.
		if err := unmarshalNumbers(req.Params(), &p); err == nil && !c.json && !c.wasInterrupted() {
			c.show(p)
		}
		return nil, nil
	case "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			c.note(p.Type, p.Message)
		}
		return nil, nil
	case "chat/confirm":
		var p conversation.ConfirmRequest
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "chat/confirm: %v", err)
		}
		return map[string]conversation.Decision{"decision": c.confirm(p)}, nil
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, req)
}

// show prints one event: the text as it streams, the SQL, the rows.
func (c *askClient) show(e conversation.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	if e.Kind != conversation.EventThought {
		c.endThoughtLocked()
	}
	switch e.Kind {
	case conversation.EventThought:
		c.showThoughtLocked(e.Text)
	case conversation.EventText:
		fmt.Fprint(c.out, e.Text)
		c.printed = !strings.HasSuffix(e.Text, "\n")
	case conversation.EventToolCall:
		if e.SQL != "" {
			c.endLineLocked()
			fmt.Fprintf(c.out, "\n> %s\n", strings.ReplaceAll(strings.TrimSpace(e.SQL), "\n", "\n  "))
			c.waiting.set(true, "running the statement")
		}
	case conversation.EventToolResult:
		if st := e.Statement; st != nil {
			c.endLineLocked()
			if st.Status == "rejected" && c.confirmIn == nil {
				st.Error = refusedWithoutTerminal(st.Error)
			}
			writeStatement(c.out, *st)
		} else if e.Summary != "" && e.Tool != "render_chart" {
			// What a schema tool found: "orders: 4 columns, PK id, ...".
			c.endLineLocked()
			fmt.Fprintf(c.out, "\n→ %s\n", e.Summary)
		}
		c.waiting.set(true, "waiting for the model")
	case conversation.EventStatus:
		c.endLineLocked()
		fmt.Fprintf(c.stderr, "%s\n", e.Message)
	}
}

// showThoughtLocked prints a piece of the model's reasoning on stderr, so
// that stdout holds the answer alone: dim on a terminal, as a note apart
// from the answer.
func (c *askClient) showThoughtLocked(text string) {
	if !c.thinking {
		c.endLineLocked()
		c.thinking = true
	}
	c.thoughtOpen = !strings.HasSuffix(text, "\n")
	if c.dim {
		text = "\x1b[2m" + text + "\x1b[0m"
	}
	fmt.Fprint(c.stderr, text)
}

// endThoughtLocked ends the reasoning's last line before what follows.
func (c *askClient) endThoughtLocked() {
	if c.thinking {
		if c.thoughtOpen {
			fmt.Fprintln(c.stderr)
		}
		fmt.Fprintln(c.stderr)
		c.thinking, c.thoughtOpen = false, false
	}
}

// confirm asks about a write. Enter, or anything but yes or always, is no.
func (c *askClient) confirm(p conversation.ConfirmRequest) conversation.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eraseLocked()
	c.endLineLocked()
	c.waiting.set(false, "")
	defer func() {
		if !c.wasInterrupted() {
			c.waiting.set(true, "running the statement")
		}
	}()
	what := "changes the database"
	switch p.Risk {
	case "outside":
		what = "reaches outside the database"
	case "cost":
		what = "is an expensive read"
	}
	on := ""
	if p.Label != "" {
		on = " on " + strings.ToUpper(p.Label)
	}
	fmt.Fprintf(c.stderr, "\nThis statement %s%s: %s\n  %s\n",
		what, on, strings.TrimSpace(p.Reason), strings.ReplaceAll(strings.TrimSpace(p.SQL), "\n", "\n  "))
	for _, l := range p.MaskedLines() {
		fmt.Fprintf(c.stderr, "  %s\n", strings.ReplaceAll(l, "\n", " "))
	}
	if dry := p.DryRunText(); dry != "" {
		fmt.Fprintln(c.stderr, dry)
	}
	if p.Scope != "" {
		fmt.Fprintf(c.stderr, "a(lways): %s.\nRun it? [y/N/a] ", p.Scope)
	} else {
		// Nothing but this statement could be allowed: it asks every time.
		fmt.Fprint(c.stderr, "Run it? [y/N] ")
	}
	line, ok := c.readLine()
	if !ok {
		return conversation.Reject
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return conversation.AllowOnce
	case "a", "always":
		if p.Scope != "" {
			return conversation.AllowAlways
		}
	}
	return conversation.Reject
}

// pipeConn joins the two ends of the client's pipes into one connection.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	p.r.Close()
	return p.w.Close()
}

// nopCloser keeps the server from closing stdout, which the process owns.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// refusedWithoutTerminal is what the terminal says of a statement the
// server refused because no one could confirm it: the server's sentence
// speaks of confirming in general, the terminal of how to do it here.
func refusedWithoutTerminal(serverSaid string) string {
	if strings.Contains(serverSaid, "outside the database") {
		return "This statement reaches outside the database; run it from a terminal to confirm it."
	}
	return "This statement writes; run it from a terminal to confirm it."
}
