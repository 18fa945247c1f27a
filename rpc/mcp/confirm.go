package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/conversation"
)

// errNoElicitation is why a write did not run for a client that cannot
// ask its user: the host's agent, whose word counts for nothing, is the
// only one it could ask.
var errNoElicitation = errors.New("this MCP client declares no elicitation, so aiq cannot ask its user. " +
	"Run the statement from an editor that can confirm it, such as aiq's VS Code or Neovim plugin or an ACP editor like Zed, " +
	"or in aiq's own chat with aiq-rpc ask; do not retry it here")

// confirmer asks the user of req's client about a write through
// elicitation/create: allow once, or reject. Decline, cancel, an error and
// no answer within the timeout all reject. A client without elicitation
// rejects every write with errNoElicitation. Nothing the host's agent
// sends (a readOnlyHint, an argument) changes this.
// source names the data source for the user.
func (s *Server) confirmer(req *sdk.CallToolRequest, source string) conversation.Confirmer {
	if !canElicit(req.Session.InitializeParams()) {
		return func(ctx context.Context, cr conversation.ConfirmRequest) (conversation.Decision, error) {
			return conversation.Reject, errNoElicitation
		}
	}
	return func(ctx context.Context, cr conversation.ConfirmRequest) (conversation.Decision, error) {
		ctx, cancel := context.WithTimeout(ctx, s.opts.ConfirmTimeout)
		defer cancel()
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{
			Mode:            "form",
			Message:         confirmMessage(cr, source),
			RequestedSchema: decisionSchema(req.Session.InitializeParams().ProtocolVersion),
		})
		switch {
		case err != nil && ctx.Err() == context.DeadlineExceeded:
			return conversation.Reject, fmt.Errorf("no answer came within %s", s.opts.ConfirmTimeout)
		case err != nil:
			return conversation.Reject, fmt.Errorf("the client did not ask the user: %w", err)
		case res.Action != "accept":
			return conversation.Reject, nil
		}
		if d, _ := res.Content["decision"].(string); d == string(conversation.AllowOnce) {
			return conversation.AllowOnce, nil
		}
		return conversation.Reject, nil
	}
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

// confirmMessage says what the statement is and what it does.
func confirmMessage(cr conversation.ConfirmRequest, source string) string {
	what := "writes to the database"
	switch cr.Risk {
	case "ddl":
		what = "changes the database's schema or privileges"
	case "outside":
		what = "reaches outside the database (a server file, the network or another database)"
	case "cost":
		what = "only reads, but is costly"
	}
	if cr.Label != "" {
		source += " (" + cr.Label + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your agent asks aiq to run this statement on the data source %s:\n\n%s\n\nIt %s", source, strings.TrimSpace(cr.SQL), what)
	if cr.Reason != "" {
		fmt.Fprintf(&b, " (%s)", strings.TrimSuffix(cr.Reason, "."))
	}
	b.WriteString(".")
	if dry := cr.DryRunText(); dry != "" {
		b.WriteString(" " + dry)
	}
	b.WriteString(" It runs only if you allow it.")
	return b.String()
}
