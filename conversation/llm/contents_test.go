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
		assert.Equal(t, string(want), string(got), "request %d", i)
	}
	assert.LessOrEqual(t, m.contents.curBytes, m.contents.limit, "a generation keeps at most its bound")
	assert.NotEmpty(t, m.contents.prev, "the generations turned over")
}
