package conversation

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type atkModel struct {
	steps []Reply
	reqs  []Request
}

func (m *atkModel) Complete(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	m.reqs = append(m.reqs, req)
	r := m.steps[0]
	m.steps = m.steps[1:]
	return r, nil
}

// atkTools: a tool set with a masked source whose scrub re-makes each text
// (the same text, new bytes), as a masked source's scrub may.
type atkTools struct{}

func (atkTools) Specs() []ToolSpec {
	return []ToolSpec{{Name: "q", Description: "q", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (atkTools) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	return `{"rows":[["` + string(args) + `"]]}`, nil
}
func (atkTools) scrubForModel(ctx context.Context, text string, isJSON bool) string {
	return strings.Clone(text)
}
func (atkTools) masksForModel() bool { return true }

func call(id, args string) Reply {
	return Reply{ToolCalls: []ToolCall{{ID: id, Type: "function", Function: FunctionCall{Name: "q", Arguments: args}}}}
}

func TestAttackRunnerMaskedTwoTurns(t *testing.T) {
	m := &atkModel{steps: []Reply{call("a", `{"x":1}`), call("b", `{"x":2}`), {Content: "done"}, {Content: "done 2"}}}
	r := Runner{Model: m, Tools: atkTools{}}
	s := NewSession("", "", r.now())
	if _, err := r.Run(context.Background(), s, Turn{System: "sys", User: "q1"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), s, Turn{System: "sys", User: "q2"}, nil); err != nil {
		t.Fatal(err)
	}
	last1 := m.reqs[2].Messages // turn 1, third request: system, user, asst, tool a, asst, tool b
	first2 := m.reqs[3].Messages
	for i, msg := range last1 {
		if msg.Role == RoleTool && msg.Content != first2[i].Content {
			t.Errorf("G4 broken through Runner: result %d (%s) got a new fence on the next turn:\n%.80s\n%.80s", i, msg.ToolCallID, msg.Content, first2[i].Content)
		}
	}
}
