package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
)

// writeOptions are the permission options of a write, the safe one first:
// a client that picks the first option on Enter rejects. "Allow always" is
// offered only with a scope, and its name is the scope, so that the user
// reads what it covers ("Allow UPDATE on orders, up to 10 rows at a time, for this conversation").
func writeOptions(scope string) []sdk.PermissionOption {
	options := []sdk.PermissionOption{
		{OptionId: "reject_once", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: "allow_once", Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
	}
	if scope != "" {
		options = append(options, sdk.PermissionOption{OptionId: "allow_always", Name: scope, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	return append(options, sdk.PermissionOption{OptionId: "reject_always", Name: "Reject always", Kind: sdk.PermissionOptionKindRejectAlways})
}

// permissionInput is the tool call's input as the permission request shows it:
// the SQL and what its dry run found (dryRun, affectedRows, dryRunReason,
// as in chat/confirm).
func permissionInput(req conversation.ConfirmRequest) map[string]any {
	in := map[string]any{"sql": req.SQL}
	if req.DryRun != "" {
		in["dryRun"] = req.DryRun
	}
	if req.AffectedRows != nil {
		in["affectedRows"] = *req.AffectedRows
	}
	if req.DryRunReason != "" {
		in["dryRunReason"] = req.DryRunReason
	}
	return in
}

// permissionText is the body of a write's permission request: why it
// asks, the SQL, what its masked tokens stand for, and what "always"
// would cover.
func permissionText(req conversation.ConfirmRequest) string {
	on := ""
	if req.Label != "" {
		on = " (source labelled **" + req.Label + "**)"
	}
	what := "can change the database"
	if req.Risk == "cost" {
		what = "is an expensive read"
	}
	text := fmt.Sprintf("This statement %s%s: %s\n\n%s", what, on, req.Reason, conversation.Fenced(req.SQL, "sql"))
	if lines := req.MaskedLines(); len(lines) > 0 {
		// Fenced, as a token reads as a Markdown autolink and a value
		// may hold Markdown.
		text += "\n\nThe masked values it names, shown to you only:\n\n" + conversation.Fenced(strings.Join(lines, "\n"), "")
	}
	if dry := req.DryRunText(); dry != "" {
		text += "\n\n" + dry
	}
	if req.Scope == "" {
		return text + "\n\nIt asks every time: no \"always\" covers a statement like this one."
	}
	return text + "\n\n\"Always\" covers only this: " + req.Scope + "."
}

// confirmer asks the client, with session/request_permission, whether a
// statement that writes may run. Only an explicit allow runs it: a
// cancelled or failed request is a reject, which the model is told.
func (a *Agent) confirmer(s *session) conversation.Confirmer {
	return func(ctx context.Context, req conversation.ConfirmRequest) (conversation.Decision, error) {
		s.mu.Lock()
		callID, title, rejectAll := s.callID, s.callTitle, s.rejectAll
		s.mu.Unlock()
		if title == "" {
			title = sqlTitle(req.SQL)
		}
		if rejectAll {
			// The user's own answer, given before: a reject like any
			// other ("You declined"), not a confirmation that failed.
			return conversation.Reject, nil
		}
		kind := riskKind(req.Risk) // "ddl", "write", or "cost" (a read)
		if req.Risk == "cost" {
			kind = sdk.ToolKindRead
		}
		call := sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(callID),
			// The card's own title: a client that shows the request on the
			// card must not see its title change while the user decides.
			Title:    &title,
			Kind:     &kind,
			Status:   sdk.Ptr(sdk.ToolCallStatusPending),
			RawInput: permissionInput(req),
			Content:  textContent(permissionText(req)),
		}
		optionID, err := a.askPermission(ctx, s, call, writeOptions(req.Scope))
		if err != nil {
			return conversation.Reject, err
		}
		switch optionID {
		case "allow_once":
			return conversation.AllowOnce, nil
		case "allow_always":
			return conversation.AllowAlways, nil
		case "reject_always":
			s.mu.Lock()
			s.rejectAll = true
			s.mu.Unlock()
		}
		return conversation.Reject, nil
	}
}

// askPermission sends session/request_permission and returns the option
// the user picked, "" when the request was cancelled.
func (a *Agent) askPermission(ctx context.Context, s *session, call sdk.ToolCallUpdate, options []sdk.PermissionOption) (sdk.PermissionOptionId, error) {
	res, err := sdk.SendRequest[sdk.RequestPermissionResponse](a.conn, ctx, sdk.ClientMethodSessionRequestPermission,
		sdk.RequestPermissionRequest{SessionId: s.id, ToolCall: call, Options: options})
	if err != nil {
		var rerr *sdk.RequestError
		if errors.As(err, &rerr) {
			return "", fmt.Errorf("the editor did not answer the permission request: %s", rerr.Message)
		}
		return "", fmt.Errorf("the editor did not answer the permission request: %w", err)
	}
	if res.Outcome.Selected == nil {
		return "", nil
	}
	id := res.Outcome.Selected.OptionId
	for _, o := range options {
		if o.OptionId == id {
			return id, nil
		}
	}
	return "", fmt.Errorf("the editor answered the permission request with %q, which is not one of its options", id)
}
