// Package modeltest holds in-process test doubles for the conversation
// loop: a scripted Model that records what it was asked, and Tools built
// from plain functions. It is imported by tests only.
package modeltest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aiq/aiq-rpc/conversation"
)

// Step is one scripted model reply.
type Step struct {
	// Text is streamed in these pieces; the reply's content is their
	// concatenation.
	Text      []string
	ToolCalls []conversation.ToolCall
	// Err fails the request instead.
	Err error
	// Hold blocks the request until its context ends, then fails with the
	// context's error, as a real model stream does when cancelled.
	Hold bool
}

// Model is a scripted conversation.Model. Each request is answered by
// Respond when set, else by the next of Steps. It is safe for concurrent use.
type Model struct {
	Steps   []Step
	Respond func(req conversation.Request) Step
	// Forget skips recording requests, for benchmarks.
	Forget bool

	mu       sync.Mutex
	next     int
	requests []conversation.Request
}

// Complete answers req with the next step.
func (m *Model) Complete(ctx context.Context, req conversation.Request, onText func(string)) (conversation.Reply, error) {
	step, err := m.step(req)
	if err != nil {
		return conversation.Reply{}, err
	}
	if step.Hold {
		<-ctx.Done()
		return conversation.Reply{}, ctx.Err()
	}
	if step.Err != nil {
		return conversation.Reply{}, step.Err
	}
	for _, piece := range step.Text {
		if err := ctx.Err(); err != nil {
			return conversation.Reply{}, err
		}
		onText(piece)
	}
	return conversation.Reply{Content: strings.Join(step.Text, ""), ToolCalls: step.ToolCalls}, nil
}

func (m *Model) step(req conversation.Request) (Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.Forget {
		// Record a copy: the caller may reuse the slice's backing array.
		req.Messages = slices.Clone(req.Messages)
		m.requests = append(m.requests, req)
	}
	if m.Respond != nil {
		return m.Respond(req), nil
	}
	if m.next >= len(m.Steps) {
		return Step{}, fmt.Errorf("modeltest: no step scripted for request %d", m.next+1)
	}
	m.next++
	return m.Steps[m.next-1], nil
}

// Requests returns the requests received so far.
func (m *Model) Requests() []conversation.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Answer is a step that answers with text, streamed in words.
func Answer(text string) Step {
	return Step{Text: strings.SplitAfter(text, " ")}
}

// Call is a step that calls one tool with arguments given as JSON text.
func Call(id, name, args string) Step {
	return Step{ToolCalls: []conversation.ToolCall{CallOf(id, name, args)}}
}

// CallOf builds a tool call.
func CallOf(id, name, args string) conversation.ToolCall {
	return conversation.ToolCall{ID: id, Type: "function", Function: conversation.FunctionCall{Name: name, Arguments: args}}
}

// ToolFunc is one tool's behaviour.
type ToolFunc func(ctx context.Context, args json.RawMessage) (any, error)

// Tools is a conversation.Tools made of functions, by name.
type Tools map[string]ToolFunc

// Specs describes each tool with an open object schema, sorted by name.
func (t Tools) Specs() []conversation.ToolSpec {
	var specs []conversation.ToolSpec
	for name := range t {
		specs = append(specs, conversation.ToolSpec{
			Name:        name,
			Description: "test tool " + name,
			Parameters:  json.RawMessage(`{"type":"object"}`),
		})
	}
	slices.SortFunc(specs, func(a, b conversation.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	return specs
}

// Run calls the named function.
func (t Tools) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	f, ok := t[name]
	if !ok {
		return nil, fmt.Errorf("modeltest: no tool %q", name)
	}
	return f(ctx, args)
}
