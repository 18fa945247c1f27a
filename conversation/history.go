package conversation

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aiq/aiq-rpc/sessionio"
)

// DefaultHistoryLimit is the number of turns a session keeps by default.
const DefaultHistoryLimit = 20

// decodeHistory turns a file's raw_messages into a history that a strict
// chat API accepts, skipping what cannot be used and saying why. It returns
// the first stored system prompt separately: system messages are never part
// of the history, but the prompt is kept so that a load and save without a
// turn writes the file back as it was.
func decodeHistory(raws []json.RawMessage) (history []Message, system string, warnings []string) {
	var b historyBuilder
	for i, raw := range raws {
		path := fmt.Sprintf("raw_messages[%d]", i)
		m, w, err := DecodeMessage(raw)
		for _, text := range w {
			b.warn("%s.%s", path, text)
		}
		if err != nil {
			b.warn("%s: %v; skipped", path, err)
			continue
		}
		if m.Role == RoleSystem {
			if system == "" {
				system = m.Content
			}
			continue
		}
		b.add(m, path)
	}
	b.closeBlock()
	return b.msgs, system, b.warnings
}

// historyBuilder keeps the rule of the chat API that every assistant tool
// call is answered by a tool message, and every tool message answers a call
// of the assistant message just before the run of tool messages it is in.
type historyBuilder struct {
	msgs     []Message
	paths    []string // where each kept message came from, for warnings
	warnings []string

	// The open block: the assistant message whose tool calls the following
	// tool messages answer.
	open     bool
	blockAt  int // index in msgs
	answered map[string]bool
}

func (b *historyBuilder) warn(format string, args ...any) {
	b.warnings = append(b.warnings, fmt.Sprintf(format, args...))
}

func (b *historyBuilder) add(m Message, path string) {
	if m.Role == RoleTool {
		if !b.answers(m.ToolCallID) {
			b.warn("%s: a tool result for call %q, which the assistant message before it did not make (or which was already answered); skipped", path, m.ToolCallID)
			return
		}
		b.answered[m.ToolCallID] = true
	} else {
		b.closeBlock()
		if len(m.ToolCalls) > 0 {
			b.open, b.blockAt = true, len(b.msgs)
			b.answered = map[string]bool{}
		}
	}
	b.msgs = append(b.msgs, m)
	b.paths = append(b.paths, path)
}

func (b *historyBuilder) answers(id string) bool {
	if !b.open || id == "" || b.answered[id] {
		return false
	}
	return slices.ContainsFunc(b.msgs[b.blockAt].ToolCalls, func(c ToolCall) bool { return c.ID == id })
}

// closeBlock drops the open block's calls that got no result, and the
// assistant message itself when nothing of it is left.
func (b *historyBuilder) closeBlock() {
	if !b.open {
		return
	}
	at := b.blockAt
	b.open = false
	m := &b.msgs[at]
	kept := m.ToolCalls[:0:0]
	for _, c := range m.ToolCalls {
		if b.answered[c.ID] {
			kept = append(kept, c)
			continue
		}
		b.warn("%s: tool call %q (%s) has no result; dropped", b.paths[at], c.ID, c.Function.Name)
	}
	m.ToolCalls = kept
	if len(kept) == 0 && m.Content == "" {
		b.warn("%s: nothing left of the unfinished assistant message; dropped", b.paths[at])
		b.msgs = slices.Delete(b.msgs, at, at+1)
		b.paths = slices.Delete(b.paths, at, at+1)
	}
}

// historyFromLegacy makes a history of the legacy list, for files that have
// no usable raw_messages.
func historyFromLegacy(legacy []sessionio.LegacyMessage) []Message {
	msgs := make([]Message, 0, len(legacy))
	for _, l := range legacy {
		msgs = append(msgs, Message{Role: Role(l.Role), Content: l.Content})
	}
	return msgs
}

// trimTurns keeps the last limit turns of list, a turn being a user message
// and all that follows it up to the next one. Cutting only at user messages
// keeps every tool message with its call.
func trimTurns[T any](list []T, isUser func(T) bool, limit int) []T {
	starts := turnStarts(list, isUser)
	if len(starts) <= limit {
		return list
	}
	if limit <= 0 {
		return list[:0]
	}
	return slices.Clone(list[starts[len(starts)-limit]:])
}

func turnStarts[T any](list []T, isUser func(T) bool) []int {
	var starts []int
	for i, m := range list {
		if isUser(m) {
			starts = append(starts, i)
		}
	}
	return starts
}

func isUserMessage(m Message) bool { return m.Role == RoleUser }

func isUserLegacy(m sessionio.LegacyMessage) bool { return m.Role == string(RoleUser) }
