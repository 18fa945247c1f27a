package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// BenchmarkPromptRoundTrip is one session/prompt answered by the instant
// scripted model (over HTTP, through the real model client), from the
// request to its response, the autosave included. The yardstick is the
// same turn asked of the Workspace directly, without ACP.
func BenchmarkPromptRoundTrip(b *testing.B) {
	b.Run("acp", func(b *testing.B) {
		f := newFixture(b)
		for range b.N {
			f.model.Add(llmtest.Step{Text: "An instant answer."})
		}
		id := f.newSession()
		f.client.heard = func(sdk.SessionNotification) {}
		b.ResetTimer()
		for range b.N {
			res, err := f.prompt(id, sdk.TextBlock("a question"))
			if err != nil || res.StopReason != sdk.StopReasonEndTurn {
				b.Fatal(err, res.StopReason)
			}
		}
	})
	b.Run("workspace", func(b *testing.B) {
		f := newFixture(b)
		for range b.N {
			f.model.Add(llmtest.Step{Text: "An instant answer."})
		}
		info, err := f.ws.New(context.Background(), "")
		require.NoError(b, err)
		b.ResetTimer()
		for range b.N {
			if _, err := f.ws.Ask(context.Background(), info.SessionID, conversation.Question{Query: "a question"}, nil, func(conversation.Event) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// chunkModel streams n chunks in one answer, each once the client has
// heard the one before, and measures the time from handing a chunk to the
// turn to the client's agent_message_chunk.
type chunkModel struct {
	n     int
	heard chan time.Time
	total time.Duration
}

func (m *chunkModel) Complete(ctx context.Context, req conversation.Request, onText func(string)) (conversation.Reply, error) {
	for range m.n {
		start := time.Now()
		onText("a chunk of the answer, about as long as a model sends ")
		m.total += (<-m.heard).Sub(start)
	}
	return conversation.Reply{Content: "done"}, nil
}

// BenchmarkChunkToUpdate is the delay from a model's chunk to its
// agent_message_chunk in the client (ns/chunk). The yardstick, "pipe", is
// the same notification's JSON written to a pipe and decoded at the other
// end: the floor any stdio front end pays.
func BenchmarkChunkToUpdate(b *testing.B) {
	b.Run("acp", func(b *testing.B) {
		f := newFixture(b)
		m := &chunkModel{n: b.N, heard: make(chan time.Time, 1)}
		f.modelOverride = m
		id := f.newSession()
		f.client.heard = func(n sdk.SessionNotification) {
			if n.Update.AgentMessageChunk != nil {
				m.heard <- time.Now()
			}
		}
		b.ResetTimer()
		res, err := f.prompt(id, sdk.TextBlock("stream"))
		require.NoError(b, err)
		require.Equal(b, sdk.StopReasonEndTurn, res.StopReason)
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N), "ns/chunk")
	})
	b.Run("pipe", func(b *testing.B) {
		line, err := json.Marshal(sdk.SessionNotification{SessionId: "/home/u/.aiq/sessions/session_20261125000000.json",
			Update: sdk.UpdateAgentMessageText("a chunk of the answer, about as long as a model sends ")})
		require.NoError(b, err)
		line = append(line, '\n')
		r, w := io.Pipe()
		heard := make(chan time.Time, 1)
		go func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				var n sdk.SessionNotification
				if json.Unmarshal(sc.Bytes(), &n) == nil {
					heard <- time.Now()
				}
			}
		}()
		var total time.Duration
		b.ResetTimer()
		for range b.N {
			start := time.Now()
			w.Write(line)
			total += (<-heard).Sub(start)
		}
		w.Close()
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/chunk")
	})
}
