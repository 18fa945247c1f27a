package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/tools"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// logName is the prefix of the call logs' files: mcp_YYYYMMDD_<source>.json.
const logName = "mcp"

// handler answers calls of t. A failure of the tool is a result with
// isError, which the host's model reads; a panic is one too, and logged.
func (s *Server) handler(t toolDef) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		ctx, done := s.calls.start(ctx)
		defer done()
		if ctx.Err() != nil {
			return toolError("aiq-rpc is stopping (its input ended, or it was told to stop) and did not start " + t.name + "."), nil
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp: panic in a tool call", "tool", t.name, "panic", p, "stack", string(debug.Stack()))
				res, err = toolError("aiq-rpc failed inside "+t.name+" (a bug, now in its log); the call did not finish. Try again, or report it."), nil
			}
		}()
		args, err := t.parseArgs(req.Params.Arguments)
		if err != nil {
			return toolError(err.Error()), nil
		}
		if t.local != nil {
			return t.local(s)
		}
		var source string
		if v, ok := args["source"]; ok {
			json.Unmarshal(v, &source) // checked by parseArgs
			delete(args, "source")
		}
		if t.name == toolQuery {
			if refusal := s.onlyReads(source, args); refusal != nil {
				return refusal, nil
			}
		}
		return s.call(ctx, req, t, source, args)
	}
}

// onlyReads refuses a query call whose statement the classifier does not
// read as a read, before anything runs: the result names execute_sql,
// where the statement asks the user. A source that cannot be found is left
// to the call, which says so as any tool does.
func (s *Server) onlyReads(source string, args map[string]json.RawMessage) *sdk.CallToolResult {
	src, err := s.ws.CallSource(source)
	if err != nil {
		return nil
	}
	var sql string
	json.Unmarshal(args["sql"], &sql) // checked by parseArgs
	v, err := sqltext.Classify(sql, engine.DialectOf(src.Type))
	switch {
	case err != nil:
		// More than one statement, or one that cannot be read: say
		// which tool takes what, as the refusal of a write does.
		return toolError(fmt.Sprintf("query did not run the statement: %v. query runs one statement that only reads; "+
			"send a statement that writes to execute_sql, which asks the user first, one statement per call.", strings.TrimSuffix(err.Error(), ".")))
	case v.Class == sqltext.ReadOnly:
		return nil
	}
	what := "changes the database"
	if v.Outside {
		what = "reaches outside the database"
	}
	why := ""
	if v.Reason != "" {
		why = " (" + strings.TrimSuffix(v.Reason, ".") + ")"
	}
	return toolError(fmt.Sprintf("query runs only statements that read, and this %s %s%s, so it did not run. "+
		"Send it to execute_sql instead, which asks the user before it runs it.", v.Kind, what, why))
}

// call runs one of the Set's tools through the workspace.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, t toolDef, source string, args map[string]json.RawMessage) (*sdk.CallToolResult, error) {
	r, err := s.run(ctx, req, t, source, args)
	if err != nil {
		return toolError(conversation.UserMessage(err)), nil
	}
	if r.Err != nil {
		return toolError(r.Err.Error()), nil
	}
	if nf, ok := r.Result.(*tools.NotFound); ok {
		return toolError(sentence(nf.Message)), nil
	}
	structured := structuredOf(r)
	res := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: render(t.name, structured)}},
		StructuredContent: structured,
		IsError:           r.Failed() || unanswered(r.Result),
	}
	return res, nil
}

// unanswered reports whether a tool's result, though no error to the
// chat, gives the host none of what it asked for: the chat's model reads
// "no table `x`; did you mean ..." or a statement explain_sql would not
// plan as a result to act on, and a host as a failed call.
func unanswered(v any) bool {
	switch v := v.(type) {
	case *tools.TableCards:
		return len(v.Tables) == 0
	case *tools.Plan:
		return v.Refused != "" || v.Error != ""
	}
	return false
}

// run is one conversation.Call, with the confirmer of this client.
func (s *Server) run(ctx context.Context, req *sdk.CallToolRequest, t toolDef, source string, args map[string]json.RawMessage) (conversation.CallResult, error) {
	data, err := json.Marshal(args)
	if err != nil {
		return conversation.CallResult{}, err
	}
	src, err := s.ws.CallSource(source)
	if err != nil {
		return conversation.CallResult{}, err
	}
	confirm := s.confirmer(req, src.Name+" ("+src.Type+")")
	if t.name == toolQuery {
		confirm = onlyCost(confirm)
	}
	c := conversation.Call{Source: src.Name, Tool: t.runs(), Args: data, Confirm: confirm, Tokens: &s.tokens}
	if !s.opts.NoLog {
		c.Log = logName
	}
	r, err := s.ws.Call(ctx, c)
	if err != nil {
		return r, err
	}
	if r.LogError != nil {
		s.log.Warn("mcp: the call ran but could not be logged", "tool", t.name, "source", r.Source, "err", r.LogError)
	}
	return r, nil
}

// structuredOf is a call's structuredContent: what the model reads of the
// result (within the chat's bound), with the source it ran on and, for a
// statement, the statement.
func structuredOf(r conversation.CallResult) map[string]any {
	m := map[string]any{}
	var v any
	dec := json.NewDecoder(strings.NewReader(r.Content))
	dec.UseNumber() // a bigint keeps its digits
	if dec.Decode(&v) == nil {
		if obj, ok := v.(map[string]any); ok {
			m = obj
		} else {
			m["result"] = v
		}
	}
	m["source"] = r.Source
	if sql, ok := r.Result.(conversation.SQLResult); ok {
		m["sql"] = sql.Statement.SQL
	}
	return m
}

// toolError is a result that tells the host's model what went wrong.
func toolError(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimSpace(msg)}}, IsError: true}
}

// onlyCost is the confirmer of query: a read that the engine estimates too
// costly asks the user as through execute_sql, and nothing else is ever
// allowed, should a write get past the classifier to the database's
// read-only refusal.
func onlyCost(confirm conversation.Confirmer) conversation.Confirmer {
	return func(ctx context.Context, cr conversation.ConfirmRequest) (conversation.Decision, error) {
		if cr.Risk == "cost" {
			return confirm(ctx, cr)
		}
		return conversation.Reject, errQueryWrites
	}
}

var errQueryWrites = errors.New("query runs only statements that read, and this one is not; send it to execute_sql, which asks the user first")
