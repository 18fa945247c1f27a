package llm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// BenchmarkStreamedCompletion is one streamed answer of 500 text deltas
// through the real go-openai client over loopback HTTP: what a long answer
// costs on top of the model's own time.
func BenchmarkStreamedCompletion(b *testing.B) {
	text := strings.TrimSpace(strings.Repeat("word ", 500))
	srv := llmtest.NewServer(b)
	m := newTestModel(b, srv.URL)
	req := withHistory(3, "Which customers ordered most last week?")
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv.Add(llmtest.Step{Text: text})
		b.StartTimer()
		deltas := 0
		reply, err := m.Complete(b.Context(), req, func(string) { deltas++ })
		require.NoError(b, err)
		require.Equal(b, 500, deltas)
		require.Len(b, reply.Content, len(text))
	}
}
