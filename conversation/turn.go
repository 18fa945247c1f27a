package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
)

// DefaultMaxModelCalls bounds the model requests of one turn, so that a
// model that keeps calling tools cannot loop for ever.
const DefaultMaxModelCalls = 10

// ErrTooManyModelCalls ends a turn whose model kept asking for tools.
var ErrTooManyModelCalls = errors.New("the model kept calling tools without answering")

// ModelError is a failed model request: the endpoint's error, or a reply
// that could not be used.
type ModelError struct {
	// Request counts the turn's model requests, from 1.
	Request int
	Err     error
}

func (e *ModelError) Error() string {
	return fmt.Sprintf("model request %d: %v", e.Request, e.Err)
}

func (e *ModelError) Unwrap() error { return e.Err }

// Model is a chat completion endpoint with tools. Complete sends one request
// and streams the reply's text through onText as it arrives, on the
// goroutine that called it. It returns when the reply is complete, or with
// ctx's error as soon as ctx is done.
type Model interface {
	Complete(ctx context.Context, req Request, onText func(delta string)) (Reply, error)
}

// Request is one chat completion request: the system prompt first, the
// current user message last.
type Request struct {
	Messages []Message
	Tools    []ToolSpec
	// OnThought, when set, hears the reply's reasoning as it streams, as
	// onText hears its answer; a model without reasoning never calls it.
	OnThought func(delta string)
}

// Reply is the model's answer to one request.
type Reply struct {
	Content   string
	ToolCalls []ToolCall
	// FinishReason is why the model stopped, as the endpoint said it:
	// FinishLength, FinishContentFilter, "stop", "tool_calls", or "".
	FinishReason string
	// Reasoning is the reply's reasoning text, and ReasoningField the
	// message field the endpoint sent it in and wants it back in
	// ("reasoning_content", "reasoning"); "" when it came in the content's
	// <think> tags, which no endpoint wants back.
	Reasoning      string
	ReasoningField string
	// Notes are warnings about the reply for the user, each a sentence,
	// such as a tool call written as text that could not be read.
	Notes []string
}

// The finish reasons a turn reads.
const (
	FinishLength        = "length"
	FinishContentFilter = "content_filter"
)

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// Tools runs the tools the model may call. Run gets the call's arguments as
// a JSON object and returns a value to send back to the model as JSON.
type Tools interface {
	Specs() []ToolSpec
	Run(ctx context.Context, name string, args json.RawMessage) (any, error)
}

// Progress hears a turn as it happens. Its methods are called from the
// goroutine that runs the turn, in order.
type Progress interface {
	// Text is a piece of the model's answer as it streams.
	Text(delta string)
	// ToolStarted is a tool call about to run.
	ToolStarted(call ToolCall)
	// ToolRows is the first page of rows of a statement that the tool
	// call still runs, reported by the tool with ReportRows: at most once
	// a call, between ToolStarted and ToolFinished.
	ToolRows(call ToolCall, st Statement)
	// ToolFinished is a tool call's outcome.
	ToolFinished(outcome ToolOutcome)
}

// ToolOutcome is what one tool call did.
type ToolOutcome struct {
	Call ToolCall
	// Args are the call's arguments as a JSON object; nil when they could
	// not be read.
	Args json.RawMessage
	// Result is what the tool returned, nil when it failed.
	Result any
	// Err is why the call failed: bad arguments, an unknown tool, or the
	// tool's own error. The model reads it in Content and may try again.
	Err error
	// Content is the tool message the model gets: JSON text.
	Content string
}

// Turn is one question to run.
type Turn struct {
	// System is this turn's system prompt, built afresh by the caller.
	System string
	// User is the user message: the question, with any selection.
	User string
}

// Result is a completed turn.
type Result struct {
	// Answer is the model's final text, possibly "".
	Answer   string
	Outcomes []ToolOutcome
	// Added are the messages the turn appended to the history.
	Added      []Message
	ModelCalls int
	// StopReason is StopEndTurn, or StopMaxTokens or StopRefusal when the
	// last reply was cut short by the output limit or a content filter.
	StopReason string
	// Thoughts is the reasoning the model streamed in the turn.
	Thoughts string
	// Notes are the replies' warnings for the user, each a sentence.
	Notes []string
}

// Runner runs turns: it asks the model, runs the tools it calls, and
// repeats until the model answers without tools.
type Runner struct {
	Model Model
	Tools Tools // nil: the model gets no tools
	// MaxModelCalls bounds the model requests of a turn; 0 means
	// DefaultMaxModelCalls.
	MaxModelCalls int
	// HistoryLimit is the number of turns kept; 0 means DefaultHistoryLimit.
	HistoryLimit int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Run runs one turn on s. On success it appends the turn to both of the
// session's lists and trims them to the history limit. A model error, the
// call limit or a cancelled ctx ends the turn with an error and leaves s
// exactly as it was.
func (r *Runner) Run(ctx context.Context, s *Session, t Turn, p Progress) (Result, error) {
	if strings.TrimSpace(t.User) == "" {
		return Result{}, errors.New("run turn: the question is empty")
	}
	if p == nil {
		p = noProgress{}
	}
	start := r.now()
	specs := r.specs() // once a turn: the tool set does not change within one
	base := buildRequest(t.System, r.scrubHistory(ctx, s.History))
	added := []Message{{Role: RoleUser, Content: t.User}}
	ids := callIDs(s.History)
	fences := s.fencer()
	var res Result
	var thoughts strings.Builder
	onThought := func(delta string) {
		thoughts.WriteString(delta)
		if rp, ok := p.(ReplyProgress); ok {
			rp.Thought(delta)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("run turn: %w", err)
		}
		res.ModelCalls++
		reply, err := r.Model.Complete(ctx, Request{Messages: fences.fenced(concat(base, added)), Tools: specs, OnThought: onThought}, p.Text)
		if err != nil {
			return Result{}, fmt.Errorf("run turn: %w", &ModelError{Request: res.ModelCalls, Err: err})
		}
		res.Notes = append(res.Notes, reply.Notes...)
		if rp, ok := p.(ReplyProgress); ok {
			for _, n := range reply.Notes {
				rp.Note(n)
			}
		}
		calls := normalizeCalls(reply.ToolCalls, ids)
		msg := Message{Role: RoleAssistant, Content: reply.Content, ToolCalls: calls}
		if len(calls) > 0 {
			// Reasoning models that call tools want their reasoning back
			// on the message that made the calls.
			SetReasoning(&msg, reply.ReasoningField, reply.Reasoning)
		}
		added = append(added, msg)
		if len(calls) == 0 {
			res.Answer = reply.Content
			res.StopReason = stopReason(reply.FinishReason)
			if strings.TrimSpace(reply.Content) == "" && strings.TrimSpace(reply.Reasoning) != "" {
				res.Answer = OnlyReasoning
				p.Text(res.Answer)
			}
			break
		}
		if res.ModelCalls >= r.maxModelCalls() {
			return Result{}, fmt.Errorf("run turn: %w after %d requests; ask a narrower question", ErrTooManyModelCalls, res.ModelCalls)
		}
		for _, call := range calls {
			if err := ctx.Err(); err != nil {
				return Result{}, fmt.Errorf("run turn: %w", err)
			}
			o := r.runTool(ctx, call, specs, p)
			res.Outcomes = append(res.Outcomes, o)
			added = append(added, Message{Role: RoleTool, Content: o.Content, ToolCallID: call.ID})
		}
	}
	res.Added = added
	res.Thoughts = thoughts.String()
	r.commit(s, t, res, start)
	return res, nil
}

func (r *Runner) commit(s *Session, t Turn, res Result, start time.Time) {
	end := r.now()
	s.History = append(s.History, res.Added...)
	s.Legacy = append(s.Legacy,
		sessionio.LegacyMessage{Role: string(RoleUser), Content: t.User, Timestamp: start},
		sessionio.LegacyMessage{Role: string(RoleAssistant), Content: legacyAnswer(res), Timestamp: end},
	)
	s.SystemPrompt = t.System
	s.Updated = end
	s.Trim(r.historyLimit())
}

// buildRequest is the part of every request of a turn that does not change:
// the system prompt and the history. The history is valid by construction
// (see decodeHistory and Run), so no element needs checking here.
func buildRequest(system string, history []Message) []Message {
	return concat([]Message{{Role: RoleSystem, Content: system}}, history)
}

func concat(a, b []Message) []Message {
	return append(slices.Clip(a), b...)
}

// normalizeCalls gives every call an id and the type "function", so that
// each tool result can name the call it answers even when the model left
// the id out or used one again. An id is unique in the session: seen holds
// the ids of its history and of the turn so far, and takes the new ones.
// Clients find a call by its id (result/export's callId, ACP's cards), and
// models that number their calls from 1 in every turn are common.
func normalizeCalls(calls []ToolCall, seen map[string]bool) []ToolCall {
	var out []ToolCall
	for _, c := range calls {
		if c.ID == "" || seen[c.ID] {
			c.ID = freshCallID(seen)
		}
		c.Type = "function" // the only kind of tool we offer
		seen[c.ID] = true
		out = append(out, c)
	}
	return out
}

// freshCallID is an id of ours that seen does not hold.
func freshCallID(seen map[string]bool) string {
	for n := len(seen) + 1; ; n++ {
		if id := fmt.Sprintf("call_aiq_%d", n); !seen[id] {
			return id
		}
	}
}

// callIDs are the ids of the calls in history.
func callIDs(history []Message) map[string]bool {
	ids := map[string]bool{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			ids[c.ID] = true
		}
	}
	return ids
}

func (r *Runner) runTool(ctx context.Context, call ToolCall, specs []ToolSpec, p Progress) ToolOutcome {
	p.ToolStarted(call)
	o := ToolOutcome{Call: call}
	name := call.Function.Name
	args, err := toolArgs(call.Function.Arguments)
	switch {
	case err != nil:
		o.Err = fmt.Errorf("the arguments of %s are not usable: %w", name, err)
	case !slices.ContainsFunc(specs, func(s ToolSpec) bool { return s.Name == name }):
		o.Err = fmt.Errorf("%w %q; the tools are: %s", ErrUnknownTool, name, strings.Join(toolNames(specs), ", "))
	default:
		o.Args = args
		o.Result, o.Err = r.Tools.Run(withRows(ctx, call, p), name, args)
	}
	o.Content = toolContent(o)
	if s, ok := toolsAs[modelScrubber](r.Tools); ok {
		o.Content = s.scrubForModel(ctx, o.Content, true)
		if o.Err != nil {
			o.Err = &scrubbedError{msg: s.scrubForModel(ctx, o.Err.Error(), false), err: o.Err}
		}
	}
	p.ToolFinished(o)
	return o
}

// scrubHistory returns history with the tool results and answers of
// earlier turns scrubbed again, as the request holds them: a mask added since, or a
// session file written before masks were, must not send them in clear.
// The session keeps them as they were.
func (r *Runner) scrubHistory(ctx context.Context, history []Message) []Message {
	s, ok := toolsAs[modelScrubber](r.Tools)
	if !ok || !s.masksForModel() {
		// Nothing to hide: the history goes as it is, and no request pays
		// for reading every earlier result again (json.Valid of the whole
		// history grew with it).
		return history
	}
	out := slices.Clone(history)
	for i, m := range out {
		switch {
		case m.Content == "":
		case m.Role == RoleTool:
			out[i].Content = s.scrubForModel(ctx, m.Content, json.Valid([]byte(m.Content)))
		case m.Role == RoleAssistant:
			// A turn the model ended without text keeps a summary of its
			// last result, which the server wrote, as its answer.
			out[i].Content = s.scrubForModel(ctx, m.Content, false)
		}
	}
	return out
}

// modelScrubber is a toolbox that hides the known values of masked
// columns in text on its way to the model, whatever put them there: a
// row, an error, a plan, a catalog.
type modelScrubber interface {
	scrubForModel(ctx context.Context, text string, isJSON bool) string
	// masksForModel reports whether scrubForModel can change anything:
	// whether the source masks a column.
	masksForModel() bool
}

// toolsWrapper is Tools that run other Tools, such as a Call's, which
// hears the call's context: the optional interfaces of the tools it wraps
// (the scrubber above all) are found through it.
type toolsWrapper interface {
	unwrapTools() Tools
}

// toolsAs returns the optional interface T of t, or of the tools t wraps,
// however deep: a wrapper that forgets to forward one of T's methods must
// not make the turn go without it.
func toolsAs[T any](t Tools) (T, bool) {
	for t != nil {
		if v, ok := t.(T); ok {
			return v, true
		}
		w, ok := t.(toolsWrapper)
		if !ok {
			break
		}
		t = w.unwrapTools()
	}
	var zero T
	return zero, false
}

// scrubbedError is a tool's error as the model may read it.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// toolArgs reads a call's arguments as a JSON object. Models sometimes wrap
// the object in a JSON string, or in a string of a string; empty arguments
// are an empty object.
func toolArgs(text string) (json.RawMessage, error) {
	raw := json.RawMessage(strings.TrimSpace(text))
	for range 4 {
		if len(raw) == 0 {
			return json.RawMessage("{}"), nil
		}
		switch sessionio.Kind(raw) {
		case "an object":
			if !json.Valid(raw) {
				return nil, errors.New("not valid JSON")
			}
			return raw, nil
		case "a string":
			var inner string
			if err := json.Unmarshal(raw, &inner); err != nil {
				return nil, errors.New("not valid JSON")
			}
			raw = json.RawMessage(strings.TrimSpace(inner))
		default:
			if !json.Valid(raw) {
				return nil, errors.New("not valid JSON")
			}
			return nil, fmt.Errorf("want a JSON object, found %s", sessionio.Kind(raw))
		}
	}
	return nil, errors.New("a JSON string nested too deep to hold an object")
}

// toolContent is the tool message for an outcome: the result as JSON, or
// {"status":"error","error":...}.
func toolContent(o ToolOutcome) string {
	if o.Err == nil {
		// Without HTML escaping: the model reads "->" and "<", not
		// "\u003e", and pays no tokens for it.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(o.Result)
		if err == nil {
			return strings.TrimSuffix(b.String(), "\n")
		}
		o.Err = fmt.Errorf("the result of %s could not be encoded: %w", o.Call.Function.Name, err)
	}
	data, _ := json.Marshal(struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}{"error", o.Err.Error()})
	return string(data)
}

func (r *Runner) specs() []ToolSpec {
	if r.Tools == nil {
		return nil
	}
	return r.Tools.Specs()
}

func toolNames(specs []ToolSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

func (r *Runner) maxModelCalls() int {
	if r.MaxModelCalls <= 0 {
		return DefaultMaxModelCalls
	}
	return r.MaxModelCalls
}

func (r *Runner) historyLimit() int {
	if r.HistoryLimit <= 0 {
		return DefaultHistoryLimit
	}
	return r.HistoryLimit
}

// rowsKey is the context key of a tool call's rows reporter.
type rowsKey struct{}

// withRows returns ctx for running call, with a reporter that passes the
// first page the tool reports to p, and drops any later one.
func withRows(ctx context.Context, call ToolCall, p Progress) context.Context {
	var once sync.Once
	report := func(st Statement) {
		once.Do(func() { p.ToolRows(call, st) })
	}
	return context.WithValue(ctx, rowsKey{}, report)
}

// ReportRows tells the turn that runs the tool call of ctx the first page
// of rows of its statement while the statement still runs (Status
// "running"), for the editor to show before the result. Only the first
// report of a call counts; outside a turn's tool call it does nothing. It
// runs on the caller's goroutine, which it holds up while the editor is
// told; st's rows must not change afterwards.
func ReportRows(ctx context.Context, st Statement) {
	if report, ok := ctx.Value(rowsKey{}).(func(Statement)); ok {
		report(st)
	}
}

// ReplyProgress is a Progress that also hears the model's reasoning as it
// streams, and the warnings about its replies.
type ReplyProgress interface {
	Progress
	// Thought is a piece of the model's reasoning.
	Thought(delta string)
	// Note is a warning about a reply, a sentence, such as a tool call
	// written as text that could not be read.
	Note(message string)
}

type noProgress struct{}

func (noProgress) Text(string)                  {}
func (noProgress) ToolStarted(ToolCall)         {}
func (noProgress) ToolRows(ToolCall, Statement) {}
func (noProgress) ToolFinished(ToolOutcome)     {}
