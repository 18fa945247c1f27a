package llm

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// text is a plain text event, as OpenAI sends them.
func text(s string) string {
	return `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + s + `"},"finish_reason":null}]}`
}

// merged is the event that a run of plain text events becomes.
func merged(s string) string {
	return `{"choices":[{"index":0,"delta":{"content":"` + s + `"}}]}`
}

// dataLines is the stream go-openai reads for events.
func dataLines(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n")
	}
	return b.String() + "data: [DONE]\n"
}

func TestEventBodyMerges(t *testing.T) {
	call := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"list_tables","arguments":"{}"}}]}}]}`
	finish := `{"choices":[{"index":0,"delta":{"content":"end"},"finish_reason":"stop"}]}`
	role := `{"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}`
	other := `{"choices":[{"index":1,"delta":{"content":"theirs"}}]}`
	usage := `{"choices":[{"index":0,"delta":{"content":"u"}}],"usage":{"total_tokens":3}}`
	escaped := `{"choices":[{"index":0,"delta":{"content":"say \"hi\""}}]}`
	for _, tc := range []struct {
		name string
		body string
		want string
	}{
		{"a run of text", llmtest.SSE(text("one"), text(" two"), text(" three")),
			dataLines(merged("one two three"))},
		{"one text event as it came", llmtest.SSE(text("one")),
			dataLines(text("one"))},
		{"across comments, ids and event fields", ": keep-alive\n\nid: 1\ndata: " + text("a") + "\n\nevent: message\n\nretry: 5\ndata: " + text("b") + "\n\ndata: [DONE]\n\n",
			dataLines(merged("ab"))},
		{"not across a tool call", llmtest.SSE(text("a"), text("b"), call, text("c"), text("d")),
			dataLines(merged("ab"), call, merged("cd"))},
		{"not across a finish", llmtest.SSE(text("a"), finish, text("b")),
			dataLines(text("a"), finish, text("b"))},
		{"not across a role", llmtest.SSE(role, text("a"), text("b")),
			dataLines(role, merged("ab"))},
		{"not across another choice", llmtest.SSE(text("a"), other, text("b")),
			dataLines(text("a"), other, text("b"))},
		{"not with usage", llmtest.SSE(text("a"), usage),
			dataLines(text("a"), usage)},
		{"not escaped text", llmtest.SSE(text("a"), escaped, text("b")),
			dataLines(text("a"), escaped, text("b"))},
		{"not an error event", "data: " + text("a") + "\n\nevent: error\ndata: " + text("b") + "\n\ndata: [DONE]\n\n",
			dataLines(text("a"), `{ "error": `+text("b")+"}")},
		{"held text before a cut", "data: " + text("a") + "\n\ndata: " + text("b") + "\n\n",
			"data: " + merged("ab") + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newEventBody(io.NopCloser(strings.NewReader(tc.body)), 1<<20, testKey)
			got, _ := io.ReadAll(b)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// TestEventBodyNeverWaits checks that text goes on as soon as it arrives:
// only what one read brought is merged.
func TestEventBodyNeverWaits(t *testing.T) {
	pr, pw := io.Pipe()
	b := bufio.NewReader(newEventBody(pr, 1<<20, testKey))
	send := func(events ...string) {
		go func() {
			_, err := io.WriteString(pw, strings.TrimSuffix(llmtest.SSE(events...), "data: [DONE]\n\n"))
			assert.NoError(t, err)
		}()
	}
	send(text("first"))
	line, err := b.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "data: "+text("first")+"\n", line, "the first text, while the server waits")

	send(text("a"), text("b"))
	line, err = b.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "data: "+merged("ab")+"\n", line, "what arrived together")

	go func() { io.WriteString(pw, "data: [DONE]\n\n"); pw.Close() }()
	rest, err := io.ReadAll(b)
	require.NoError(t, err)
	assert.Equal(t, "data: [DONE]\n", string(rest))
}

// replyOf reads body through eventBody and reply as try does, with the
// data lines go-openai would pass on.
func replyOf(body io.Reader) (conversation.Reply, string, error) {
	lines := bufio.NewScanner(newEventBody(io.NopCloser(body), 1<<20, testKey))
	lines.Buffer(nil, 2<<20)
	var r reply
	var shown strings.Builder
	onText := func(s string) { shown.WriteString(s) }
	for lines.Scan() {
		data, ok := bytes.CutPrefix(lines.Bytes(), []byte("data: "))
		if !ok || string(data) == "[DONE]" {
			continue
		}
		if err := r.add(data, onText, testKey); err != nil {
			return conversation.Reply{}, "", err
		}
	}
	r.end(onText)
	return r.result(), shown.String(), lines.Err()
}

// sameReplyMerged checks that a stream read at once, where text events are
// merged, gives the reply that it gives read a byte at a time, where none
// are.
func sameReplyMerged(t *testing.T, body []byte) {
	whole, wholeText, errWhole := replyOf(bytes.NewReader(body))
	single, singleText, errSingle := replyOf(iotest.OneByteReader(bytes.NewReader(body)))
	if (errWhole == nil) != (errSingle == nil) {
		t.Fatalf("%q: merged error %v, unmerged error %v", body, errWhole, errSingle)
	}
	assert.Equal(t, single, whole, "%q", body)
	assert.Equal(t, singleText, wholeText, "%q", body)
}

// mergeSeeds are streams for sameReplyMerged.
func mergeSeeds() []string {
	seeds := []string{
		llmtest.SSE(text("Three"), text(" customers"), text(": grüße 東京"), text("."),
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		llmtest.SSE(text("a"), `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`, text("b")),
		llmtest.SSE(text("a"), `{"choices":[{"index":0,"message":{"content":"whole"}}]}`, text("b")),
		llmtest.SSE(text("a")) + "event: error\ndata: {\"message\":\"down\"}\n\n",
		"data: " + text("cut") + "\n\ndata: " + text("off"),
		"{\"choices\":[{\"index\":0,\"message\":{\"content\":\"not streamed\"}}]}\n\n",
	}
	return append(seeds, llmtest.SSE(chunkSeeds...))
}

func TestMergedSameReply(t *testing.T) {
	for _, s := range mergeSeeds() {
		sameReplyMerged(t, []byte(s))
	}
}

func FuzzMergedSameReply(f *testing.F) {
	for _, s := range mergeSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(sameReplyMerged)
}
