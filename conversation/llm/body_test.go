package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestSentBodyComesBackLast: a body's buffer is given back only when the
// Model and every reader the transport had are done with it, and a reader
// closed reads nothing more.
func TestSentBodyComesBackLast(t *testing.T) {
	pool := &bodyBuffers{}
	data := append(pool.get(64), "a request body"...)
	b := newSentBody(&builtBody{buf: data}, pool)
	first, retry := b.reader(), b.reader()
	got, err := io.ReadAll(first)
	require.NoError(t, err)
	assert.Equal(t, "a request body", string(got))
	require.NoError(t, first.Close())
	b.release() // the Model is done
	assert.Nil(t, pool.free, "a reader is still open")
	require.NoError(t, retry.Close())
	require.NoError(t, retry.Close(), "a second Close changes nothing")
	assert.Equal(t, cap(data), cap(pool.free), "back once the last reader closed")
	n, err := retry.Read(make([]byte, 4))
	assert.Zero(t, n)
	assert.Error(t, err, "a closed reader reads nothing")
	again := pool.get(66)
	assert.Equal(t, cap(data), cap(again), "the next body, a little longer, is built in it")
	assert.Nil(t, pool.free)
}

// TestBodiesReused: through the real transport, the buffer of one request's
// body builds the next, and each body reaches the server whole.
func TestBodiesReused(t *testing.T) {
	srv := llmtest.NewServer(t)
	m, fresh := newTestModel(t, srv.URL), newTestModel(t, srv.URL)
	var want []string
	first := 0
	for i := range 3 {
		srv.Add(llmtest.Step{Text: "ok"})
		q := question(strings.Repeat(fmt.Sprintf("question %d; ", i), 100*(3-i)))
		body, err := fresh.requestBody(q.Messages, nil)
		require.NoError(t, err)
		want = append(want, string(body.bytes()))
		_, _, err = complete(t, m, q)
		require.NoError(t, err)
		assert.NotNil(t, m.bodies.free, "request %d: its buffer is back", i)
		if i == 0 {
			first = cap(m.bodies.free)
		}
		assert.Equal(t, first, cap(m.bodies.free), "request %d was built in the first one's buffer", i)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	for i, r := range reqs {
		assert.JSONEq(t, want[i], string(r.Body), "request %d", i)
	}
}

// TestBodyReadsItsParts: a body whose long contents are kept encodings
// reads as the one slice it stands for, whatever the size of each read,
// and each reader (a retry has its own) reads it whole; the encodings are
// not in the buffer.
func TestBodyReadsItsParts(t *testing.T) {
	m := newTestModel(t, "http://127.0.0.1:1/v1")
	result := strings.Repeat(`{"status":"success","rows":[["a \"b\"", 1]]} `, 40)
	q := question("what is there?")
	q.Messages = append(q.Messages,
		conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call("c1", "execute_sql", `{"sql":"SELECT 1"}`)}},
		conversation.Message{Role: conversation.RoleTool, Content: result, ToolCallID: "c1"},
		conversation.Message{Role: conversation.RoleUser, Content: "and again?"},
		conversation.Message{Role: conversation.RoleTool, Content: result, ToolCallID: "c2"},
	)
	_, err := m.requestBody(q.Messages, nil) // the first request keeps the encodings
	require.NoError(t, err)
	built, err := m.requestBody(q.Messages, nil)
	require.NoError(t, err)
	fresh, err := newTestModel(t, "http://127.0.0.1:1/v1").requestBody(q.Messages, nil)
	require.NoError(t, err)
	want := fresh.bytes()
	require.Len(t, built.refs, 2, "both results are kept encodings")
	assert.Less(t, len(built.buf), len(want)-2*len(result), "the encodings are referred to, not copied")
	b := newSentBody(built, nil)
	assert.Equal(t, int64(len(want)), b.size)
	for _, size := range []int{1, 7, 4096, len(want) + 10} {
		r := b.reader()
		var got []byte
		buf := make([]byte, size)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			require.NotZero(t, n, "a read of %d bytes before the end reads something", size)
		}
		assert.Equal(t, string(want), string(got), "reads of %d bytes", size)
		require.NoError(t, r.Close())
	}
	var v map[string]any
	require.NoError(t, json.Unmarshal(want, &v), "the body is JSON")
}

// bytes returns the body in one slice, to compare with another.
func (b *builtBody) bytes() []byte {
	return bytes.Join(b.parts(), nil)
}
