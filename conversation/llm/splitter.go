package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/conversation"
)

// The tags that models write into their text: reasoning in <think> at the
// start of the content (Qwen, the DeepSeek-R1 distills, many models under
// Ollama), and tool calls in <tool_call> blocks (Qwen and Hermes-style
// templates when the server has no tool-call parser).
const (
	tagThink     = "<think>"
	endThink     = "</think>"
	tagToolCall  = "<tool_call>"
	endToolCall  = "</tool_call>"
	maxBlockSize = 1 << 20
)

// The kinds of piece a splitter passes on.
const (
	pieceText = iota
	pieceThought
	pieceBlock // the inside of a <tool_call> block
)

type piece struct {
	kind int
	text string
}

// The states of a splitter.
const (
	atStart = iota // nothing but space seen; a <think> may open
	inThink        // inside a leading <think>
	inText         // the answer (or the reasoning field's text)
	inBlock        // inside a <tool_call> block
)

// splitter separates one streamed field into text, thought text and tool
// call blocks, whatever the chunks the tags are split across: it holds
// back the end of a piece that may be the start of a tag until the next
// piece says what it is.
type splitter struct {
	think    bool // a leading <think> opens a thought (the content only)
	state    int
	back     int    // the state a block returns to
	held     string // text not yet passed on
	block    strings.Builder
	trimLead bool // drop the space that follows </think>
}

// feed reads the next piece of the field.
func (s *splitter) feed(text string, out func(piece)) {
	text = s.held + text
	s.held = ""
	for text != "" {
		switch s.state {
		case atStart:
			trimmed := strings.TrimLeft(text, " \t\r\n")
			switch {
			case !s.think:
				s.state = inText
			case trimmed == "" || (len(trimmed) < len(tagThink) && strings.HasPrefix(tagThink, trimmed)):
				s.held = text
				return
			case strings.HasPrefix(trimmed, tagThink):
				s.state, text = inThink, trimmed[len(tagThink):]
			default:
				s.state = inText
			}
		case inThink, inText:
			text = s.scan(text, out)
		case inBlock:
			text = s.inBlock(text, out)
		}
	}
}

// scan passes on the text of a thought or of the answer up to the next
// tag, and returns what follows the tag.
func (s *splitter) scan(text string, out func(piece)) string {
	kind, tags := pieceText, []string{tagToolCall}
	if s.state == inThink {
		kind, tags = pieceThought, []string{endThink, tagToolCall}
	}
	if s.trimLead {
		text = strings.TrimLeft(text, " \t\r\n")
		if text == "" {
			return ""
		}
		s.trimLead = false
	}
	at, tag := -1, ""
	for _, t := range tags {
		if i := strings.Index(text, t); i >= 0 && (at < 0 || i < at) {
			at, tag = i, t
		}
	}
	if at < 0 {
		keep := 0
		for _, t := range tags {
			keep = max(keep, partialTag(text, t))
		}
		out(piece{kind, text[:len(text)-keep]})
		s.held = text[len(text)-keep:]
		return ""
	}
	out(piece{kind, text[:at]})
	switch tag {
	case endThink:
		s.state, s.trimLead = inText, true
	case tagToolCall:
		s.back, s.state = s.state, inBlock
	}
	return text[at+len(tag):]
}

// inBlock gathers a <tool_call> block until its end tag.
func (s *splitter) inBlock(text string, out func(piece)) string {
	if i := strings.Index(text, endToolCall); i >= 0 {
		s.block.WriteString(text[:i])
		s.state = s.back
		out(piece{pieceBlock, s.block.String()})
		s.block.Reset()
		return text[i+len(endToolCall):]
	}
	keep := partialTag(text, endToolCall)
	s.block.WriteString(text[:len(text)-keep])
	s.held = text[len(text)-keep:]
	return ""
}

// end passes on whatever is still held when the stream is over.
func (s *splitter) end(out func(piece)) {
	switch s.state {
	case atStart, inText:
		out(piece{pieceText, s.held})
	case inThink:
		// A <think> never closed: what came is the thought.
		out(piece{pieceThought, s.held})
	case inBlock:
		// A block never closed cannot be read; shown as text.
		s.block.WriteString(s.held)
		out(piece{pieceText, tagToolCall + s.block.String()})
		s.block.Reset()
	}
	s.held, s.state = "", atStart
}

// partialTag is the length of the longest end of text that is the start
// of tag, and not all of it.
func partialTag(text, tag string) int {
	for n := min(len(tag)-1, len(text)); n > 0; n-- {
		if strings.HasSuffix(text, tag[:n]) {
			return n
		}
	}
	return 0
}

// textToolCall reads the inside of a <tool_call> block: a JSON object with
// the tool's name and its arguments, as an object or as JSON text.
func textToolCall(body string) (conversation.ToolCall, error) {
	var c struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	body = strings.TrimSpace(body)
	switch {
	case len(body) > maxBlockSize:
		return conversation.ToolCall{}, errors.New("the block is too long")
	case json.Unmarshal([]byte(body), &c) != nil:
		return conversation.ToolCall{}, errors.New("the block is not a JSON object")
	case strings.TrimSpace(c.Name) == "":
		return conversation.ToolCall{}, errors.New("the block names no tool")
	}
	var args arguments
	if err := args.UnmarshalJSON(c.Arguments); err != nil {
		return conversation.ToolCall{}, fmt.Errorf("the arguments of %s are not JSON", c.Name)
	}
	return conversation.ToolCall{Type: "function", Function: conversation.FunctionCall{
		Name: strings.TrimSpace(c.Name), Arguments: args.text}}, nil
}
