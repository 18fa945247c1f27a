package llm

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
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
		var shown strings.Builder
		reply, err := m.Complete(b.Context(), req, func(s string) { shown.WriteString(s) })
		require.NoError(b, err)
		require.Equal(b, text, shown.String())
		require.Equal(b, text, reply.Content)
	}
}

// BenchmarkTurnRequest is one request of a turn on a history of 1, 20 and
// 200 turns, each a question and an answer of about 2 KB streamed a word a
// chunk, as in cmd/aiq-rpc's BenchmarkAutosaveTurn: complete-ms-p50 is
// Complete's median, model-ms-p50 the scripted server's own for the same
// body (sent by a plain http.Post, its answer read and dropped), and
// overhead-ms their difference: what this package adds to a turn.
//
//	go test -run '^$' -bench TurnRequest -benchtime 200x ./conversation/llm/
func BenchmarkTurnRequest(b *testing.B) {
	answer := strings.Repeat("Most orders of last week were paid by card; the rest by transfer. ", 32)
	for _, turns := range []int{1, 20, 200} {
		b.Run(fmt.Sprintf("history=%d", turns), func(b *testing.B) {
			srv := llmtest.NewServer(b)
			m := newTestModel(b, srv.URL)
			req := question("")
			req.Messages = req.Messages[:1]
			for i := range turns {
				req.Messages = append(req.Messages,
					conversation.Message{Role: conversation.RoleUser, Content: fmt.Sprintf("question %d: how were last week's orders paid?", i)},
					conversation.Message{Role: conversation.RoleAssistant, Content: answer})
			}
			req.Messages = append(req.Messages, conversation.Message{Role: conversation.RoleUser, Content: "and this week?"})
			var complete, model []time.Duration
			for b.Loop() {
				srv.Add(llmtest.Step{Text: answer})
				start := time.Now()
				_, err := m.Complete(b.Context(), req, func(string) {})
				complete = append(complete, time.Since(start))
				require.NoError(b, err)

				body := srv.Requests()[len(srv.Requests())-1].Body
				srv.Add(llmtest.Step{Text: answer})
				start = time.Now()
				resp, err := http.Post(srv.URL+"/chat/completions", "application/json", bytes.NewReader(body))
				require.NoError(b, err)
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				model = append(model, time.Since(start))
				require.NoError(b, err)
			}
			c, md := medianMs(complete), medianMs(model)
			b.ReportMetric(c, "complete-ms-p50")
			b.ReportMetric(md, "model-ms-p50")
			b.ReportMetric(c-md, "overhead-ms")
		})
	}
}

func medianMs(times []time.Duration) float64 {
	slices.Sort(times)
	return float64(times[len(times)/2].Microseconds()) / 1000
}
