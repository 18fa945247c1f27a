package conversation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// Call is one tool call that a front end runs without a model of its own,
// such as the calls an MCP host's agent makes: the tool runs through the
// same Runner, Toolbox, limits and classifier as a chat's.
type Call struct {
	// Source names the data source; "" means CallSource's default.
	Source string
	Tool   string
	// Args are the call's arguments, a JSON object; empty means {}.
	Args json.RawMessage
	// Confirm is asked before a statement that writes or reaches outside
	// the database; nil rejects every such statement.
	Confirm Confirmer
	// Log names the log the call is appended to, one turn per call, in the
	// sessions folder: "mcp" writes mcp_YYYYMMDD_<source>.json. "" logs
	// nothing.
	Log string
	// Tokens, when set, keeps the masked-value tokens (sources.yaml's
	// mask) of the calls that share it, so that a token one call returned
	// finds its rows in the next; nil gives the call tokens of its own.
	Tokens *TokenScope
}

// TokenScope is the session of a series of Calls as masking sees it, such
// as the calls of one MCP server: per source, one key for the tokens, and
// the values they stand for. Its zero value is ready to use, and it is
// safe for concurrent use.
type TokenScope struct {
	mu      sync.Mutex
	maskers map[string]*guard.Masker // by source name and type
}

// share makes box mask with the scope's masker of src, which then follows
// src's mask settings as this call read them; the first box of a source
// gives the scope its masker.
func (t *TokenScope) share(box Toolbox, src sessionio.Source) {
	b, ok := toolsAs[maskSharer](box)
	if t == nil || !ok {
		return
	}
	key := src.Name + "\x00" + src.Type
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.maskers[key]; ok {
		m.SetSource(src)
		b.useMasker(m)
		return
	}
	if t.maskers == nil {
		t.maskers = map[string]*guard.Masker{}
	}
	t.maskers[key] = b.masker()
}

// CallResult is what a Call did.
type CallResult struct {
	// Source is the data source the call ran on.
	Source string
	// Result is the tool's value: an SQLResult for a statement, else the
	// tool's own. Nil when Err is set.
	Result any
	// Err is the tool's error, written for a model: arguments it cannot
	// use, an unknown table, a schema that cannot be read.
	Err error
	// Content is what a model reads of the outcome, as JSON: the result
	// within the model's bound, or {"status":"error","error":...}.
	Content string
	// Summary is the outcome in one sentence, as the CLI shows it.
	Summary string
	// LoggedTo is the log file the call was appended to; "" when it was
	// not logged, and then LogError says why if logging was asked for.
	LoggedTo string
	LogError error
}

// Failed reports whether the call did not do what it was asked: the tool
// failed, or its statement failed, was rejected or was cancelled.
func (r CallResult) Failed() bool {
	if r.Err != nil {
		return true
	}
	if sql, ok := r.Result.(SQLResult); ok {
		return sql.Statement.Status != "success"
	}
	return false
}

// CallSource returns the source a call that names name runs on: name;
// else the workspace's default source; else the only configured source
// (the demo database when none is configured). An error wraps
// ErrSourceUnavailable and says what to name.
func (w *Workspace) CallSource(name string) (sessionio.Source, error) {
	if name == "" {
		w.mu.Lock()
		name = w.cfg.DefaultSource
		w.mu.Unlock()
	}
	if name != "" {
		return w.lookupSource(name)
	}
	sources, err := w.cfg.Sources()
	if err != nil {
		return sessionio.Source{}, fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
	}
	if len(sources) == 1 {
		return sources[0], nil
	}
	return sessionio.Source{}, fmt.Errorf("%w: %d sources are configured in %s and no default is set: name one of them (%s), or start aiq-rpc with --source NAME",
		ErrSourceUnavailable, len(sources), w.cfg.Home.SourcesPath(), sourceNames(sources))
}

// ToolSpecs returns the tools of source ("" for the default), as a chat's
// model gets them.
func (w *Workspace) ToolSpecs(ctx context.Context, source string) ([]ToolSpec, error) {
	src, err := w.CallSource(source)
	if err != nil {
		return nil, err
	}
	box, err := w.cfg.OpenToolbox(ctx, src, noConfirm)
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %w", ErrSourceUnavailable, src.Name, err)
	}
	return box.Specs(), nil
}

// SchemaCard returns what a chat's system prompt says of source's
// database: its engine, version and schema.
func (w *Workspace) SchemaCard(ctx context.Context, source string) (string, error) {
	src, err := w.CallSource(source)
	if err != nil {
		return "", err
	}
	box, err := w.cfg.OpenToolbox(ctx, src, noConfirm)
	if err != nil {
		return "", fmt.Errorf("%w: open %s: %w", ErrSourceUnavailable, src.Name, err)
	}
	return strings.TrimSpace(box.Describe(ctx)), nil
}

// noConfirm is the confirmer of a call that has none: every write is
// refused.
func noConfirm(context.Context, ConfirmRequest) (Decision, error) {
	return Reject, errors.New("no one can confirm it here")
}

// Call runs one tool call. The returned error is for a call that could
// not start (an unknown source, a toolbox that cannot open, a cancelled
// ctx); what the tool itself says is in the result.
func (w *Workspace) Call(ctx context.Context, c Call) (CallResult, error) {
	src, err := w.CallSource(c.Source)
	if err != nil {
		return CallResult{}, err
	}
	confirm := c.Confirm
	if confirm == nil {
		confirm = noConfirm
	}
	box, err := w.cfg.OpenToolbox(ctx, src, confirm)
	if err != nil {
		return CallResult{}, fmt.Errorf("%w: open %s: %w", ErrSourceUnavailable, src.Name, err)
	}
	c.Tokens.share(box, src)
	args := strings.TrimSpace(string(c.Args))
	if args == "" || args == "null" {
		args = "{}"
	}
	if err := ctx.Err(); err != nil {
		return CallResult{}, fmt.Errorf("run the call: %w", err)
	}
	turn := Turn{System: callSystemPrompt(c.Log, src.Name), User: callText(c.Tool, args)}
	// The turn itself runs to its end whatever ctx does, and only the tool
	// hears ctx's cancel: a call the client or a shutdown stopped comes
	// back, and is logged, with its status (cancelled) as any other.
	runner := Runner{Model: callModel{call: ToolCall{ID: newCallID(), Type: "function",
		Function: FunctionCall{Name: c.Tool, Arguments: args}}},
		Tools: cancelledBy{box, ctx}, MaxModelCalls: 2, HistoryLimit: 1, Now: w.cfg.Now}
	work := NewSession(src.Name, src.Type, w.cfg.Now())
	start := w.cfg.Now()
	res, err := runner.Run(context.WithoutCancel(ctx), work, turn, nil)
	if err != nil {
		return CallResult{}, err
	}
	o := res.Outcomes[0]
	out := CallResult{Source: src.Name, Result: o.Result, Err: o.Err, Content: o.Content, Summary: summarize(o)}
	if c.Log != "" {
		out.LoggedTo, out.LogError = w.logCall(c.Log, src, turn, res, start)
	}
	return out, nil
}

// newCallID is the id of a logged call: many processes append calls to one
// log, so a count of the process's own would repeat.
func newCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// cancelledBy runs the tools of a Call under the runner's context, which
// carries the turn's values, cancelled when the call's own is.
type cancelledBy struct {
	Tools
	call context.Context
}

func (c cancelledBy) unwrapTools() Tools { return c.Tools }

// scrubForModel hides the known values of masked columns as the wrapped
// toolbox does: the MCP host's model reads a Call's results.
func (c cancelledBy) scrubForModel(ctx context.Context, text string, isJSON bool) string {
	if s, ok := toolsAs[modelScrubber](c.Tools); ok {
		return s.scrubForModel(ctx, text, isJSON)
	}
	return text
}

func (c cancelledBy) masksForModel() bool {
	s, ok := toolsAs[modelScrubber](c.Tools)
	return ok && s.masksForModel()
}

func (c cancelledBy) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(c.call, func() { cancel(context.Cause(c.call)) })
	defer stop()
	return c.Tools.Run(callCtx{ctx, c.call}, name, args)
}

// callCtx is a tool's context under a Call: its Err says the call's
// cancel at once, while AfterFunc's cancel of the embedded context, which
// runs in a goroutine of its own, may come a moment later, after a
// confirmation that the cancel interrupted has already been answered.
type callCtx struct {
	context.Context
	call context.Context
}

func (c callCtx) Err() error {
	if err := c.call.Err(); err != nil {
		return err
	}
	return c.Context.Err()
}

// callModel stands in for the model of a Call: it asks for the one call,
// then ends the turn without text, as directModel does.
type callModel struct{ call ToolCall }

func (m callModel) Complete(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	if req.Messages[len(req.Messages)-1].Role == RoleUser {
		return Reply{ToolCalls: []ToolCall{m.call}}, nil
	}
	return Reply{}, nil
}

// callText is the user message of a logged call: the statement itself for
// execute_sql, else the tool and its arguments.
func callText(tool, args string) string {
	if tool == "execute_sql" {
		var a struct {
			SQL string `json:"sql"`
		}
		if json.Unmarshal([]byte(args), &a) == nil && strings.TrimSpace(a.SQL) != "" {
			return a.SQL
		}
	}
	return tool + " " + args
}

func callSystemPrompt(log, source string) string {
	return fmt.Sprintf(callLogPrompt+" that an %s host's agent made to aiq on the source %q, one turn each: "+
		"the user messages are its calls, not a person's questions.", strings.ToUpper(log), source)
}

// callLogPrompt starts the system prompt of a log of calls, by which a
// list tells a log from a conversation.
const callLogPrompt = "This session logs the tool calls"

// callLog is the log file of calls that a source's calls of one day are
// appended to now; n numbers it among the day's files.
type callLog struct {
	mu   sync.Mutex
	n    int
	file *sessionio.LogFile // nil until the first append
}

// maxLogFiles bounds the files of one source's calls in one day; each
// holds up to sessionio.MaxFileSize.
const maxLogFiles = 1000

// logCall appends a call's turn to the day's log of its source, written
// before the call is answered. It never rewrites what the log holds, and
// other processes append to the same file: a day's file that is full, or
// not one aiq-rpc can add to, is followed by the next, mcp_DAY_SOURCE_2.json.
func (w *Workspace) logCall(name string, src sessionio.Source, t Turn, res Result, start time.Time) (string, error) {
	day := start.Format("20060102")
	base := fmt.Sprintf("%s_%s_%s", name, day, fileSafe(src.Name))
	l := w.callLog(base, day)
	l.mu.Lock()
	defer l.mu.Unlock()
	msgs := res.Added
	var skipped []string
	reopened := false
	for l.n < maxLogFiles {
		if l.file == nil {
			path := filepath.Join(w.cfg.Home.SessionsDir(), base+".json")
			if l.n > 1 {
				path = filepath.Join(w.cfg.Home.SessionsDir(), fmt.Sprintf("%s_%d.json", base, l.n))
			}
			md := sessionio.Metadata{CreatedAt: start.UTC(), DataSource: src.Name, DatabaseType: src.Type}
			f, err := sessionio.OpenLog(path, md, []Message{{Role: RoleSystem, Content: t.System}})
			if err != nil {
				return "", fmt.Errorf("log the call: %w", err)
			}
			l.file = f
		}
		err := l.file.Append(msgs, w.cfg.Now().UTC())
		if err == nil {
			return l.file.Path(), nil
		}
		if errors.Is(err, fs.ErrNotExist) && !reopened {
			// Someone removed the file: start it again.
			reopened = true
			l.file.Close()
			l.file = nil
			continue
		}
		if !errors.Is(err, sessionio.ErrLogFull) && !errors.Is(err, sessionio.ErrNotAppendable) {
			return "", fmt.Errorf("log the call: %w", err)
		}
		if errors.Is(err, sessionio.ErrNotAppendable) {
			skipped = append(skipped, l.file.Path())
		}
		l.file.Close()
		l.file = nil
		l.n++
	}
	return "", fmt.Errorf("log the call: %d files of %s are full or are not logs (%s)", maxLogFiles, base, strings.Join(skipped, ", "))
}

// callLog returns the log of base, letting go of the logs of other days: a
// server runs for days.
func (w *Workspace) callLog(base, day string) *callLog {
	w.mu.Lock()
	defer w.mu.Unlock()
	if l, ok := w.logs[base]; ok {
		return l
	}
	if w.logs == nil {
		w.logs = map[string]*callLog{}
	}
	for b, l := range w.logs {
		if !strings.Contains(b, "_"+day+"_") {
			l.close()
			delete(w.logs, b)
		}
	}
	l := &callLog{n: 1}
	w.logs[base] = l
	return l
}

// close closes the log's file, after the appends under way.
func (l *callLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// fileSafe turns a source's name into a part of a file name.
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
}
