package conversation

import (
	"encoding/json"

	"github.com/aiq/aiq-rpc/sessionio"
)

// The chat message types are the session file's: package sessionio reads
// and writes them in one pass with the rest of the file.
type (
	// Role is the author of a message, as the chat completions API names it.
	Role = sessionio.Role
	// Message is one chat message; its content is always a string.
	Message = sessionio.Message
	// ToolCall is a function call requested by the model.
	ToolCall = sessionio.ToolCall
	// FunctionCall names the tool and carries its arguments as JSON text.
	FunctionCall = sessionio.FunctionCall
)

// The roles of the chat completions API.
const (
	RoleSystem    = sessionio.RoleSystem
	RoleUser      = sessionio.RoleUser
	RoleAssistant = sessionio.RoleAssistant
	RoleTool      = sessionio.RoleTool
)

// DecodeMessage decodes one stored chat message and normalises it as the
// AIQ CLI does; see sessionio.DecodeMessage.
func DecodeMessage(raw json.RawMessage) (Message, []string, error) {
	return sessionio.DecodeMessage(raw)
}
