package conversation

import (
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
// turn writes the file back as it was. at[i] is the index in raw_messages
// of history[i].
func decodeHistory(f *sessionio.File) (history []Message, at []int, system string, warnings []string) {
	elements := f.Elements
	if len(elements) != len(f.RawMessages) {
		// Built in memory rather than decoded: decode the elements here.
		elements = make([]sessionio.Element, len(f.RawMessages))
		for i, raw := range f.RawMessages {
			e := &elements[i]
			e.Message, e.Warnings, e.Err = sessionio.DecodeMessage(raw)
		}
	}
	var b historyBuilder
	for i, e := range elements {
		if e.BadUTF8 {
			b.warn("raw_messages[%d]: invalid UTF-8, read as U+FFFD (\uFFFD) as the AIQ CLI reads it", i)
		}
		for _, text := range e.Warnings {
			b.warn("raw_messages[%d].%s", i, text)
		}
		if e.Err != nil {
			b.warn("raw_messages[%d]: %v; skipped", i, e.Err)
			continue
		}
		if e.Message.Role == RoleSystem {
			if system == "" {
				system = e.Message.Content
			}
			continue
		}
		b.add(e.Message, i)
	}
	b.closeBlock()
	return b.msgs, b.at, system, b.warnings
}

// historyBuilder keeps the rule of the chat API that every assistant tool
// call is answered by a tool message, and every tool message answers a call
// of the assistant message just before the run of tool messages it is in.
type historyBuilder struct {
	msgs     []Message
	at       []int // the raw_messages index of each kept message, for warnings
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

func (b *historyBuilder) add(m Message, at int) {
	if m.Role == RoleTool {
		if !b.answers(m.ToolCallID) {
			b.warn("raw_messages[%d]: a tool result for call %q, which the assistant message before it did not make (or which was already answered); skipped", at, m.ToolCallID)
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
	b.at = append(b.at, at)
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
		b.warn("raw_messages[%d]: tool call %q (%s) has no result; dropped", b.at[at], c.ID, c.Function.Name)
	}
	m.ToolCalls = kept
	if len(kept) == 0 && m.Content == "" {
		b.warn("raw_messages[%d]: nothing left of the unfinished assistant message; dropped", b.at[at])
		b.msgs = slices.Delete(b.msgs, at, at+1)
		b.at = slices.Delete(b.at, at, at+1)
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
