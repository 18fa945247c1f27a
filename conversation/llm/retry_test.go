package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

func TestRetryAfter429(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 429, RetryAfter: "1"}, llmtest.Step{Text: "ok"})
	m := newTestModel(t, srv.URL)
	reply, _, err := complete(t, m, question("q"))
	require.NoError(t, err)
	assert.Equal(t, "ok", reply.Content)
	assert.Equal(t, []time.Duration{time.Second}, m.waits, "the wait the endpoint asked for")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].Body, reqs[1].Body, "the same request, sent afresh")
}

func TestRetryAfterDate(t *testing.T) {
	when := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	srv := llmtest.NewServer(t, llmtest.Step{Status: 503, RetryAfter: when}, llmtest.Step{Text: "ok"})
	m := newTestModel(t, srv.URL)
	_, _, err := complete(t, m, question("q"))
	require.NoError(t, err)
	require.Len(t, m.waits, 1)
	assert.InDelta(t, 3*time.Second, m.waits[0], float64(1500*time.Millisecond))
}

func TestRetryAfterTooLong(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Status: 429, RetryAfter: "120"}, llmtest.Step{Text: "ok"})
	m := newTestModel(t, srv.URL)
	_, _, err := complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Equal(t, 429, e.Status)
	assert.Equal(t, 120*time.Second, e.RetryAfter)
	assert.Contains(t, e.Error(), "rate limiting requests (HTTP 429 Too Many Requests): llmtest: scripted HTTP 429; it asks to wait 2m0s before trying again")
	assert.Len(t, srv.Requests(), 1, "gave up at once")
	assert.Empty(t, m.waits)
}

func TestRetry500ThenSuccess(t *testing.T) {
	// The real sleep, briefly.
	srv := llmtest.NewServer(t, llmtest.Step{Status: 500}, llmtest.Step{Text: "ok"})
	m, err := New(Config{URL: srv.URL, Model: "m"})
	require.NoError(t, err)
	m.backoff = time.Millisecond
	reply, err := m.Complete(t.Context(), question("q"), nil)
	require.NoError(t, err)
	assert.Equal(t, "ok", reply.Content)
	assert.Len(t, srv.Requests(), 2)
}

func TestRetryGivesUp(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Status: 503, Text: "overloaded"}, 5)...)
	m := newTestModel(t, srv.URL)
	_, _, err := complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Equal(t, 503, e.Status)
	assert.Equal(t, "the model endpoint failed (HTTP 503 Service Unavailable): overloaded; gave up after 3 tries", e.Error())
	assert.Len(t, srv.Requests(), 3, "exactly MaxTries tries")
	require.Len(t, m.waits, 2)
	// Jittered: the first in [b/2, b], the second in [b, 2b].
	assert.GreaterOrEqual(t, m.waits[0], defaultBackoff/2)
	assert.LessOrEqual(t, m.waits[0], defaultBackoff)
	assert.GreaterOrEqual(t, m.waits[1], defaultBackoff)
	assert.LessOrEqual(t, m.waits[1], 2*defaultBackoff)
}

func TestMaxTries(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Status: 502}, 5)...)
	m := newTestModel(t, srv.URL, func(c *Config) { c.MaxTries = 1 })
	_, _, err := complete(t, m, question("q"))
	e := apiError(t, err)
	assert.Equal(t, 502, e.Status)
	assert.NotContains(t, e.Error(), "gave up")
	assert.Len(t, srv.Requests(), 1)
}

func TestNoRetryOn4xx(t *testing.T) {
	for _, status := range []int{400, 403, 404, 422} {
		srv := llmtest.NewServer(t, llmtest.Step{Status: status, Text: "no such thing"}, llmtest.Step{Text: "ok"})
		m := newTestModel(t, srv.URL)
		_, _, err := complete(t, m, question("q"))
		e := apiError(t, err)
		assert.Equal(t, status, e.Status)
		assert.Contains(t, e.Error(), "no such thing")
		assert.Len(t, srv.Requests(), 1, "HTTP %d", status)
		assert.Empty(t, m.waits)
	}
}

func TestRetryDroppedConnection(t *testing.T) {
	for _, tc := range []struct {
		name string
		step llmtest.Step
	}{
		{"before the answer", llmtest.Step{Drop: true}},
		{"after the first chunk, before any text", llmtest.Step{Text: "lost", CutAfter: 1}},
		{"in the middle of a tool call", llmtest.Step{ToolCalls: []llmtest.Call{{ID: "c", Name: "execute_sql", Arguments: `{"sql":"SELECT 1"}`}}, CutAfter: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.step, llmtest.Step{Text: "ok"})
			m := newTestModel(t, srv.URL)
			reply, deltas, err := complete(t, m, question("q"))
			require.NoError(t, err)
			assert.Equal(t, "ok", reply.Content)
			assert.Empty(t, reply.ToolCalls, "nothing of the cut answer is kept")
			assert.Equal(t, "ok", joined(deltas))
			assert.Len(t, srv.Requests(), 2)
			assert.Len(t, m.waits, 1)
		})
	}
}

func TestDroppedEveryTime(t *testing.T) {
	srv := llmtest.NewServer(t, repeat(llmtest.Step{Drop: true}, 3)...)
	_, _, err := complete(t, newTestModel(t, srv.URL), question("q"))
	e := apiError(t, err)
	assert.Equal(t, 0, e.Status)
	assert.Equal(t, "the model endpoint closed the connection before answering; gave up after 3 tries", e.Error())
}

func TestScriptRunsOut(t *testing.T) {
	srv := llmtest.NewServer(t)
	m := newTestModel(t, srv.URL, func(c *Config) { c.MaxTries = 1 })
	_, _, err := complete(t, m, question("q"))
	assert.Contains(t, err.Error(), "llmtest: no scripted step left for request 1")
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {" 0.5 "}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"0"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"1e300"}}, 24 * time.Hour},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
	} {
		assert.Equal(t, tc.want, retryAfter(tc.header, now), "%v", tc.header)
	}
}

func TestParseErrorBody(t *testing.T) {
	for _, tc := range []struct {
		body string
		want errorBody
	}{
		{`{"error":{"message":"bad","code":"context_length_exceeded","type":"invalid_request_error"}}`, errorBody{"bad", "context_length_exceeded", "invalid_request_error"}},
		{`{"error":{"message":["a","b"],"code":400}}`, errorBody{message: "a, b", code: "400"}},
		{`{"error":"model not found"}`, errorBody{message: "model not found"}},
		{`{"object":"error","message":"m","type":"BadRequestError","code":400}`, errorBody{"m", "400", "BadRequestError"}},
		{`{"detail":"Not Found"}`, errorBody{message: "Not Found"}},
		{"  <html><body>502</body></html>", errorBody{}},
		{"upstream connect error", errorBody{message: "upstream connect error"}},
		{"", errorBody{}},
	} {
		assert.Equal(t, tc.want, parseErrorBody([]byte(tc.body)), tc.body)
	}
}

func joined(s []string) string {
	var out string
	for _, p := range s {
		out += p
	}
	return out
}
