package acp

import (
	"context"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/conversation"
)

// allowances lists the session's "Allow always" answers, or, for
// "revoke ID" or "revoke all", ends them and lists what is left.
func (a *Agent) allowances(ctx context.Context, s *session, arg string) (string, error) {
	verb, id, _ := strings.Cut(arg, " ")
	id = strings.TrimSpace(id)
	switch {
	case arg == "":
		list, err := a.ws.Allowances(ctx, s.wsID)
		if err != nil {
			return "", err
		}
		return allowanceList(list, ""), nil
	case verb == "revoke" && id != "":
		list, err := a.ws.Revoke(ctx, s.wsID, id)
		if err != nil {
			return "", err
		}
		done := "Revoked " + id + "."
		if id == "all" {
			done = "Revoked them all."
		}
		return allowanceList(list, done), nil
	}
	return "", fmt.Errorf("%w: /allowances takes nothing, 'revoke ID' or 'revoke all', not %q", conversation.ErrInvalidRequest, arg)
}

// allowanceList says what "Allow always" covers, after the sentence done.
func allowanceList(list []conversation.Allowance, done string) string {
	var b strings.Builder
	if done != "" {
		b.WriteString(done + " ")
	}
	if len(list) == 0 {
		b.WriteString("No \"Allow always\" is in force: every statement that writes asks first.")
		return b.String()
	}
	b.WriteString("\"Allow always\" covers, in this session only:\n\n")
	for _, al := range list {
		fmt.Fprintf(&b, "- `%s`: %s\n", al.ID, al.Scope)
	}
	b.WriteString("\nEnd one with `/allowances revoke ID`, or all with `/allowances revoke all`.")
	return b.String()
}
