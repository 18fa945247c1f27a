package llm

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// TestSentBodyComesBackLast: a body's buffer is given back only when the
// Model and every reader the transport had are done with it, and a reader
// closed reads nothing more.
func TestSentBodyComesBackLast(t *testing.T) {
	pool := &bodyBuffers{}
	data := append(pool.get(64), "a request body"...)
	b := newSentBody(data, pool)
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
		want = append(want, string(body))
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
