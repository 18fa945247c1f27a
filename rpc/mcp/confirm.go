package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/internal/confirmpage"
)

// DefaultHostAnswer is how fast a host can answer an elicitation without
// showing it to anyone: Claude Code's -p cancels in about 12 ms, Codex's
// exec declines as fast. No person reads a statement and decides in less.
// A decline or cancel this fast is the host's, not its user's.
const DefaultHostAnswer = 100 * time.Millisecond

// confirmer asks the user of req's client about a statement through
// elicitation/create: allow once, or reject. Where the client cannot ask
// its user (it declares no elicitation, or answers decline or cancel
// faster than a person could, or fails), it asks through a one-time page
// in the user's browser instead (askInBrowser). A user's decline or
// reject, an error and no answer within the timeout all reject. Nothing
// the host's agent sends (a readOnlyHint, an argument) changes this.
// source names the data source for the user.
func (s *Server) confirmer(req *sdk.CallToolRequest, source string) conversation.Confirmer {
	elicit := canElicit(req.Session.InitializeParams())
	return func(ctx context.Context, cr conversation.ConfirmRequest) (conversation.Decision, error) {
		why := "this MCP client declares no elicitation, so it cannot ask its user"
		if elicit {
			d, asked, err := s.elicit(ctx, req, cr, source)
			if asked {
				return d, err
			}
			why = err.Error()
		}
		if !s.opts.NoBrowserConfirm {
			waiting(ctx, req)
		}
		return s.askInBrowser(ctx, cr, source, why)
	}
}

// waiting tells a client that asked for progress why the call waits: the
// host's user sees it where the host shows a running call. It never holds
// the page's address.
func waiting(ctx context.Context, req *sdk.CallToolRequest) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return
	}
	req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
		Message: "Waiting for the user to allow or reject the statement on the page aiq opened in their browser"})
}

// elicit asks the user through the client. asked is false when the client
// did not put the question to anyone, and err then says what it did.
func (s *Server) elicit(ctx context.Context, req *sdk.CallToolRequest, cr conversation.ConfirmRequest, source string) (d conversation.Decision, asked bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ConfirmTimeout)
	defer cancel()
	start := time.Now()
	res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
		Mode:            "form",
		Message:         confirmMessage(cr, source),
		RequestedSchema: decisionSchema(req.Session.InitializeParams().ProtocolVersion),
	})
	took := time.Since(start)
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return conversation.Reject, true, fmt.Errorf("no answer came within %s", s.opts.ConfirmTimeout)
	case err != nil && ctx.Err() != nil:
		return conversation.Reject, true, err // the call was cancelled
	case err != nil:
		return conversation.Reject, false, fmt.Errorf("this MCP client failed to ask its user (%v)", err)
	case (res.Action == "decline" || res.Action == "cancel") && took < s.opts.HostAnswer:
		return conversation.Reject, false, fmt.Errorf("this MCP client answered %s in %d ms, too fast for anyone to have read the question, so its user was not asked",
			res.Action, took.Milliseconds())
	case res.Action != "accept":
		return conversation.Reject, true, nil
	}
	if d, _ := res.Content["decision"].(string); d == string(conversation.AllowOnce) {
		return conversation.AllowOnce, true, nil
	}
	return conversation.Reject, true, nil
}

// askInBrowser asks the user through a one-time page on 127.0.0.1 opened
// in their browser, which the host's agent does not hold: the page's URL
// goes to the browser only, never to the client. why says why the client
// did not ask. Without a browser (or with --no-browser-confirm) the error
// says why the statement needed asking and where it can be run.
func (s *Server) askInBrowser(ctx context.Context, cr conversation.ConfirmRequest, source, why string) (conversation.Decision, error) {
	if s.opts.NoBrowserConfirm {
		return conversation.Reject, unconfirmed(cr, why, "aiq's confirmation page in the browser is turned off (--no-browser-confirm)")
	}
	st := confirmpage.Statement{SQL: strings.TrimSpace(cr.SQL), Source: source, Label: cr.Label,
		What: "It " + whatWhy(cr) + ". It runs only if you allow it.", DryRun: cr.DryRunText()}
	for _, m := range cr.Masked {
		st.Masked = append(st.Masked, confirmpage.Masked{Token: m.Token, Value: m.Value})
	}
	s.log.Info("mcp: the client did not ask its user; opening aiq's confirmation page in the browser", "why", why)
	allowed, err := confirmpage.Ask(ctx, st, s.opts.OpenBrowser, s.opts.ConfirmTimeout)
	switch {
	case errors.Is(err, confirmpage.ErrNoBrowser):
		return conversation.Reject, unconfirmed(cr, why, err.Error())
	case errors.Is(err, confirmpage.ErrTimeout):
		return conversation.Reject, fmt.Errorf("%s; aiq asked the user on a page in their browser, and no answer came within %s", why, s.opts.ConfirmTimeout)
	case err != nil:
		return conversation.Reject, err
	case allowed:
		return conversation.AllowOnce, nil
	}
	return conversation.Reject, nil // the user pressed Reject
}

// unconfirmed is why a statement that needed the user's yes did not get
// it: what it does, why no one was asked, and where it can be run.
func unconfirmed(cr conversation.ConfirmRequest, why, noPage string) error {
	return fmt.Errorf("this statement %s, so it runs only with the user's yes, and no one could be asked: %s, and %s. "+
		"The user can run it where aiq asks them: aiq's VS Code or Neovim plugin, an ACP editor such as Zed, "+
		"aiq-rpc ask, or the aiq CLI. Do not retry it here", what(cr), why, noPage)
}

// canElicit reports whether the client declared form elicitation.
func canElicit(p *sdk.InitializeParams) bool {
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither set means form
}

// decisionSchema is the form of a confirmation: one choice, allow once or
// reject. Allowing always is left to the scoped trust of aiq's own chat.
// Revisions before 2025-11-25 title the choices with enumNames, later ones
// with oneOf.
func decisionSchema(protocol string) map[string]any {
	choice := map[string]any{
		"type":        "string",
		"title":       "Run this statement?",
		"description": "Allow it to run this once, or reject it.",
	}
	if protocol < "2025-11-25" {
		choice["enum"] = []string{string(conversation.AllowOnce), string(conversation.Reject)}
		choice["enumNames"] = []string{"Allow once", "Reject"}
	} else {
		choice["oneOf"] = []any{
			map[string]any{"const": string(conversation.AllowOnce), "title": "Allow once"},
			map[string]any{"const": string(conversation.Reject), "title": "Reject"},
		}
	}
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"decision": choice},
		"required":   []string{"decision"},
	}
}

// what says what a statement that asks does, and so why it asks.
func what(cr conversation.ConfirmRequest) string {
	switch cr.Risk {
	case "ddl":
		return "changes the database's schema or privileges"
	case "outside":
		return "reaches outside the database (a server file, the network or another database)"
	case "cost":
		return "only reads, but is costly"
	}
	return "writes to the database"
}

// whatWhy is what, with the classifier's reason when it gives one: the
// elicitation and the browser page say the same.
func whatWhy(cr conversation.ConfirmRequest) string {
	if cr.Reason == "" {
		return what(cr)
	}
	return what(cr) + " (" + strings.TrimSuffix(cr.Reason, ".") + ")"
}

// confirmMessage says what the statement is and what it does.
func confirmMessage(cr conversation.ConfirmRequest, source string) string {
	if cr.Label != "" {
		source += " (" + cr.Label + ")"
	}
	// Written out, the characters that make a statement read otherwise
	// than it runs (a bidirectional override) cannot hide part of it.
	source, sql := confirmpage.Visible(source), confirmpage.Visible(strings.TrimSpace(cr.SQL))
	var b strings.Builder
	fmt.Fprintf(&b, "Your agent asks aiq to run this statement on the data source %s:\n\n%s\n\nIt %s.", source, sql, whatWhy(cr))
	if dry := cr.DryRunText(); dry != "" {
		b.WriteString(" " + dry)
	}
	b.WriteString(" It runs only if you allow it.")
	return b.String()
}
