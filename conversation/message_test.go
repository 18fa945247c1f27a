package conversation

import (
	"encoding/json"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeMessageNormalises(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want Message
	}{
		{"string content kept", `{"role":"user","content":"hi"}`, Message{Role: RoleUser, Content: "hi"}},
		{"empty string kept", `{"role":"assistant","content":""}`, Message{Role: RoleAssistant}},
		// Keys sorted as the CLI's Go maps sort them; numbers as written.
		{"object content becomes compact JSON", `{"role":"tool","tool_call_id":"c","content":{ "status" : "success", "row_count": 1, "big": 12345678901234567890 }}`,
			Message{Role: RoleTool, ToolCallID: "c", Content: `{"big":12345678901234567890,"row_count":1,"status":"success"}`}},
		{"array content becomes compact JSON", `{"role":"assistant","content":[ {"type":"text","text":"a < b"} ]}`,
			Message{Role: RoleAssistant, Content: `[{"text":"a < b","type":"text"}]`}},
		{"number becomes text", `{"role":"assistant","content":42}`, Message{Role: RoleAssistant, Content: "42"}},
		{"float keeps its text", `{"role":"assistant","content":1.50}`, Message{Role: RoleAssistant, Content: "1.50"}},
		{"boolean becomes text", `{"role":"user","content":true}`, Message{Role: RoleUser, Content: "true"}},
		{"null content is empty", `{"role":"tool","tool_call_id":"c","content":null}`, Message{Role: RoleTool, ToolCallID: "c"}},
		{"missing content is empty", `{"role":"assistant"}`, Message{Role: RoleAssistant}},
		{"name kept", `{"role":"user","content":"x","name":"alice"}`, Message{Role: RoleUser, Content: "x", Name: "alice"}},
		{"extra keys kept", `{"role":"assistant","content":"","reasoning_content":"thinking..."}`,
			Message{Role: RoleAssistant, Extra: map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"thinking..."`)}}},
		{"empty tool_calls dropped", `{"role":"assistant","tool_calls":[]}`, Message{Role: RoleAssistant}},
		{"null tool_calls dropped", `{"role":"assistant","tool_calls":null}`, Message{Role: RoleAssistant}},
		{"tool call with string arguments", `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}}]}`,
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}}}},
		{"tool call with object arguments and no type", `{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":{"a": 1}}}]}`,
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: `{"a":1}`}}}}},
		{"tool call extra keys kept", `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":""},"index":0}]}`,
			Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: ""}, Extra: map[string]json.RawMessage{"index": json.RawMessage("0")}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := DecodeMessage(json.RawMessage(tt.raw))
			require.NoError(t, err)
			assert.Empty(t, warnings)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeMessageRefuses(t *testing.T) {
	tests := []struct{ raw, wantErr string }{
		{`"not-an-object"`, "want an object, found a string"},
		{`null`, "want an object, found null"},
		{`[1]`, "want an object, found an array"},
		{`{"content":"x"}`, "role: missing"},
		{`{"role":"developer","content":"x"}`, `unknown role "developer"`},
		{`{"role":7,"content":"x"}`, "role: want a string, found a number"},
		{`{"role":"tool","tool_call_id":5,"content":"x"}`, "tool_call_id: want a string, found a number"},
		{`{"role":"user","name":{},"content":"x"}`, "name: want a string, found an object"},
		{`{"role":"assistant","tool_calls":{"id":"c"}}`, "tool_calls: want an array, found an object"},
		{`{"role":"user","content":"x","tool_calls":[{"id":"c","function":{"name":"f"}}]}`, "only an assistant message may call tools"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			_, _, err := DecodeMessage(json.RawMessage(tt.raw))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestDecodeMessageDropsUnusableCalls(t *testing.T) {
	raw := `{"role":"assistant","content":"","tool_calls":[
		{"id":"ok","type":"function","function":{"name":"f","arguments":"{}"}},
		{"type":"function","function":{"name":"f","arguments":"{}"}},
		{"id":"noname","function":{"arguments":"{}"}},
		{"id":"nofn"},
		{"id":"custom","type":"custom","function":{"name":"f"}},
		"junk",
		{"id":"ok","type":"function","function":{"name":"g","arguments":"{}"}}
	]}`
	m, warnings, err := DecodeMessage(json.RawMessage(raw))
	require.NoError(t, err)
	require.Len(t, m.ToolCalls, 1)
	assert.Equal(t, "ok", m.ToolCalls[0].ID)
	assert.Equal(t, []string{
		"tool_calls[1]: id: missing, so no result can answer it; dropped",
		"tool_calls[2]: function.name: missing; dropped",
		"tool_calls[3]: function: missing; dropped",
		`tool_calls[4]: type: want "function", found "custom"; dropped`,
		"tool_calls[5]: want an object, found a string; dropped",
		`tool_calls[6]: id "ok": used twice in one message; dropped`,
	}, warnings)
}

func TestMessageRoundTrip(t *testing.T) {
	raw := `{"role":"assistant","content":"a < b","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"sig":"x"}}],"reasoning_content":"r","zeta":[1]}`
	m, _, err := DecodeMessage(json.RawMessage(raw))
	require.NoError(t, err)
	out, err := sessionio.Marshal(m)
	require.NoError(t, err)
	// Known keys in the API's order, unknown ones sorted after them, and
	// no HTML escaping of SQL.
	assert.Equal(t, raw, string(out))
}

func TestToolMessageKeepsEmptyContent(t *testing.T) {
	// The API rejects a tool message without content, which is what the
	// CLI's normalisation produces for null; we keep "".
	out, err := json.Marshal(Message{Role: RoleTool, ToolCallID: "c"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"role":"tool","content":"","tool_call_id":"c"}`, string(out))
}
