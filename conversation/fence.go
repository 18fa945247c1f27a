package conversation

import (
	"github.com/aiq/aiq-rpc/tools/guard"
)

// fenced returns the messages of a request with each tool result wrapped
// as data (tools.Fence), with a token of its own: what a tool read from
// the database cannot pose as instructions to the model. The session
// keeps the results as they were; only what the model is sent is fenced,
// anew for each request.
func fenced(messages []Message) []Message {
	out := make([]Message, len(messages))
	for i, m := range messages {
		if m.Role == RoleTool {
			m.Content = guard.Fence(m.Content, "the result of a tool call")
		}
		out[i] = m
	}
	return out
}
