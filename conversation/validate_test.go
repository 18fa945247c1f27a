package conversation

import (
	"errors"
	"fmt"
)

// checkRequest applies what a strict chat completions API (OpenAI's)
// demands of a request's messages, plus our own promise about their order:
// the system prompt first, the current user message last, no other system
// message, and every tool call answered by exactly one tool message placed
// right after its assistant message.
func checkRequest(msgs []Message) error {
	if len(msgs) < 2 {
		return fmt.Errorf("want at least system and user, got %d messages", len(msgs))
	}
	if msgs[0].Role != RoleSystem {
		return fmt.Errorf("[0]: want the system prompt first, got %q", msgs[0].Role)
	}
	if last := msgs[len(msgs)-1]; last.Role != RoleUser {
		return fmt.Errorf("[%d]: want the user message last, got %q", len(msgs)-1, last.Role)
	}
	return checkHistory(msgs[1 : len(msgs)-1])
}

// checkHistory checks the history part of a request.
func checkHistory(history []Message) error {
	var pending map[string]bool // calls of the open assistant message not yet answered
	for i, m := range history {
		switch m.Role {
		case RoleTool:
			if !pending[m.ToolCallID] {
				return fmt.Errorf("history[%d]: tool message for %q answers no open call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		case RoleUser, RoleAssistant:
		default:
			return fmt.Errorf("history[%d]: role %q is not allowed here", i, m.Role)
		}
		if len(pending) > 0 {
			return fmt.Errorf("history[%d]: %d tool calls before it have no result", i, len(pending))
		}
		if m.Role == RoleUser && len(m.ToolCalls) > 0 {
			return fmt.Errorf("history[%d]: a user message with tool calls", i)
		}
		pending = map[string]bool{}
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Function.Name == "" || c.Type != "function" {
				return fmt.Errorf("history[%d]: incomplete tool call %+v", i, c)
			}
			if pending[c.ID] {
				return fmt.Errorf("history[%d]: tool call id %q used twice", i, c.ID)
			}
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		return errors.New("the history ends with unanswered tool calls")
	}
	return nil
}
