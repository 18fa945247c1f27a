package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestRequestBodyReusesEncodings sends a growing history, as turns do, from
// one model whose encodings of earlier contents are kept, and checks every
// body against the body a new model, which keeps none, writes; with the
// kept bytes bounded so low that the generations turn over on the way.
func TestRequestBodyReusesEncodings(t *testing.T) {
	long := func(i int) string {
		return fmt.Sprintf("answer %d: <b>%s</b> \"quoted\" \u2028 東京 ", i, strings.Repeat("paid by card; ", 30))
	}
	m, err := New(Config{URL: "http://127.0.0.1:1/v1", Model: "gpt-test"})
	require.NoError(t, err)
	m.contents.limit = 3 * len(long(0))
	msgs := []conversation.Message{{Role: conversation.RoleSystem, Content: strings.Repeat("You answer. ", 40)}}
	for i := range 12 {
		msgs = append(msgs,
			conversation.Message{Role: conversation.RoleUser, Content: fmt.Sprintf("question %d", i)},
			conversation.Message{Role: conversation.RoleAssistant, Content: long(i)})
		got, err := m.requestBody(msgs, nil)
		require.NoError(t, err)
		fresh, err := New(Config{URL: "http://127.0.0.1:1/v1", Model: "gpt-test"})
		require.NoError(t, err)
		want, err := fresh.requestBody(msgs, nil)
		require.NoError(t, err)
		assert.Equal(t, string(want.bytes()), string(got.bytes()), "request %d", i)
	}
	assert.LessOrEqual(t, m.contents.curBytes, m.contents.limit, "a generation keeps at most its bound")
	assert.NotEmpty(t, m.contents.prev, "the generations turned over")
}

// TestRequestBodySameTextElsewhere: a content found by where its bytes are
// and one with the same text made anew are encoded alike, and a text made
// anew on every request does not make the kept encodings grow.
func TestRequestBodySameTextElsewhere(t *testing.T) {
	m, err := New(Config{URL: "http://127.0.0.1:1/v1", Model: "gpt-test"})
	require.NoError(t, err)
	text := strings.Repeat(`{"status":"success","rows":[["a \"b\""]]} `, 20)
	var first string
	for i := range 5 {
		again := strings.Clone(text) // the same text, other bytes
		got, err := m.requestBody([]conversation.Message{{Role: conversation.RoleUser, Content: text}, {Role: conversation.RoleTool, Content: again, ToolCallID: "c"}}, nil)
		require.NoError(t, err)
		if i == 0 {
			first = string(got.bytes())
		}
		assert.Equal(t, first, string(got.bytes()), "request %d", i)
	}
	assert.Len(t, m.contents.cur, 1)
	assert.Len(t, m.contents.curSame, 1, "one place kept: the first")
}

// BenchmarkRequestBody is the building of a request's body on 200 turns of
// history, each with a 4 KB tool result, the encodings of all of them
// kept from the request before.
//
//	go test -run '^$' -bench RequestBody -count 6 ./conversation/llm/
func BenchmarkRequestBody(b *testing.B) {
	m, err := New(Config{URL: "http://127.0.0.1:1/v1", Model: "gpt-test"})
	require.NoError(b, err)
	result := strings.Repeat(`{"id":1,"name":"item \"1\"","city":"Zürich"},`, 90)
	var msgs []conversation.Message
	for i := range 200 {
		msgs = append(msgs,
			conversation.Message{Role: conversation.RoleUser, Content: fmt.Sprintf("question %d", i)},
			conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: fmt.Sprint("call_", i), Type: "function", Function: conversation.FunctionCall{Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}}},
			conversation.Message{Role: conversation.RoleTool, ToolCallID: fmt.Sprint("call_", i), Content: fmt.Sprint(i, result)},
			conversation.Message{Role: conversation.RoleAssistant, Content: fmt.Sprintf("%d. Twenty items, all in Zürich.", i)})
	}
	if _, err := m.requestBody(msgs, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.requestBody(msgs, nil); err != nil {
			b.Fatal(err)
		}
	}
}
