package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// BenchmarkRoundTrip is the latency of one request and its response
// through the binary's pipes: session/list on an empty sessions folder,
// and chat/history of a session with one turn.
func BenchmarkRoundTrip(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Step{Text: "One answer."})
	h := newHome(b).withModel(b, srv.URL)
	p := startProc(b, h, procOptions{plain: true})
	p.initialize(nil)
	var ans conversation.Answer
	p.client.Result("chat/turn", map[string]any{"query": "one question"}, &ans)
	for _, c := range []struct {
		method string
		params any
	}{
		{"session/list", nil},
		{"chat/history", map[string]any{"sessionId": ans.SessionID}},
	} {
		b.Run(c.method, func(b *testing.B) {
			for b.Loop() {
				if m := p.client.Call(c.method, c.params); m.Error != nil {
					b.Fatalf("%s: %v", c.method, m.Error)
				}
			}
		})
	}
}

// BenchmarkColdStart is the time from exec to the response to initialize,
// and the kill.
func BenchmarkColdStart(b *testing.B) {
	h := newHome(b)
	for b.Loop() {
		p := startProc(b, h, procOptions{plain: true})
		if m := p.client.Call("initialize", nil); m.Error != nil {
			b.Fatalf("initialize: %v", m.Error)
		}
		p.kill()
	}
}

// BenchmarkTurn is one chat/turn answered by the model with one text
// reply, autosave included.
func BenchmarkTurn(b *testing.B) {
	srv := llmtest.NewServer(b)
	h := newHome(b).withModel(b, srv.URL)
	p := startProc(b, h, procOptions{plain: true})
	p.initialize(nil)
	var info conversation.Info
	p.client.Result("session/new", nil, &info)
	n := 0
	for b.Loop() {
		srv.Add(llmtest.Step{Text: fmt.Sprintf("Answer number %d, in a few words.", n)})
		m := p.client.Call("chat/turn", map[string]any{"sessionId": info.SessionID, "query": fmt.Sprintf("question %d", n)})
		if m.Error != nil {
			b.Fatalf("chat/turn: %v", m.Error)
		}
		n++
	}
	b.StopTimer()
	require.Len(b, srv.Requests(), n)
}
