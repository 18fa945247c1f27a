package conversation_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// FuzzDecodeMessage: no input panics, and a decoded message encodes to
// JSON that decodes to the same message. Seeds: testdata/fuzz.
func FuzzDecodeMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := conversation.DecodeMessage(data)
		if err != nil {
			return
		}
		out, err := sessionio.Marshal(m)
		if err != nil {
			t.Fatalf("a decoded message does not encode: %v", err)
		}
		again, warnings, err := conversation.DecodeMessage(out)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("re-decoding %s: %v %v", out, err, warnings)
		}
		if a, b := mustJSON(t, m), mustJSON(t, again); a != b {
			t.Fatalf("round trip changed the message:\n%s\n%s", a, b)
		}
	})
}

// FuzzLoadAndRun: any bytes that load as a session give a valid request on
// the next turn, and the session then saves to a file the CLI accepts and
// that loads back without warnings. Seeds: testdata/fuzz, among them every
// file the CLI wrote.
func FuzzLoadAndRun(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, _, err := sessionio.Decode(data)
		if err != nil {
			return
		}
		s, _ := conversation.FromFile(file)
		m := &modeltest.Model{Steps: []modeltest.Step{modeltest.Answer("ok")}}
		r := &conversation.Runner{Model: m, Now: func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }}
		if _, err := r.Run(context.Background(), s, conversation.Turn{System: "p", User: "q"}, nil); err != nil {
			t.Fatalf("turn: %v", err)
		}
		if err := conversation.CheckRequest(m.Requests()[0].Messages); err != nil {
			t.Fatalf("invalid request from %q: %v", data, err)
		}
		out, _, err := s.Encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		if err := sessiontest.CheckCLILoadRules(out); err != nil {
			t.Fatalf("the CLI would refuse what we saved: %v\n%s", err, out)
		}
		again, warnings, err := sessionio.Decode(out)
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
		s2, more := conversation.FromFile(again)
		if len(warnings)+len(more) > 0 {
			t.Fatalf("what we saved loads with warnings: %v %v\n%s", warnings, more, out)
		}
		if a, b := mustJSON(t, s.History), mustJSON(t, s2.History); a != b {
			t.Fatalf("history changed on reload:\n%s\n%s", a, b)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
