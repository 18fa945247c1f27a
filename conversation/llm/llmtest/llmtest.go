// Package llmtest is a scripted OpenAI-compatible chat completions server
// for tests. It listens on 127.0.0.1 through httptest, so a test can point
// the real go-openai client, or a separate aiq-rpc process, at it. Each
// request is answered by the next step of its script, and every request is
// recorded for the test to inspect.
package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Step is one scripted answer.
type Step struct {
	// Text is the answer's text. A streamed answer sends it in several
	// chunks, one word each (a single word is split in two), unless Whole.
	Text string
	// Whole sends a streamed answer's text in one chunk, as a model whose
	// answer is ready at once, so that a benchmark measures what surrounds
	// the model rather than the reading of its stream.
	Whole bool
	// ToolCalls are the calls the answer asks for, in parallel when there
	// are several. A streamed answer sends each call's id and name in its
	// first chunk and the arguments spread over the following ones.
	ToolCalls []Call
	// Status, when neither 0 nor 200, makes the answer an OpenAI-style error
	// with this HTTP status; Text, when set, is its message.
	Status int
	// RetryAfter is sent as the Retry-After header when set.
	RetryAfter string
	// Body is sent as is instead of an answer built from the fields above,
	// with Status (200 when 0) and ContentType.
	Body string
	// ContentType is Body's content type; when empty it is guessed from
	// Body's first character.
	ContentType string
	// ContextLength answers 400 context_length_exceeded, as OpenAI does
	// when the request does not fit the model's context window.
	ContextLength bool
	// Hold keeps a streamed answer open after its first chunk until the
	// client goes away, for cancellation tests.
	Hold bool
	// Endless streams text after the first chunk until the client goes
	// away, for tests of the client's bound on an answer's size.
	Endless bool
	// Drop closes the connection without any answer.
	Drop bool
	// CutAfter, when positive, closes the connection abruptly after that
	// many chunks of a streamed answer, without ending the HTTP response.
	CutAfter int
	// Delay waits this long before answering.
	Delay time.Duration
	// Pace waits this long between the chunks of a streamed answer.
	Pace time.Duration
	// Respond, when set, computes the step from the request. The step it
	// returns answers that one request; its own Respond is ignored.
	Respond func(req Request) Step
}

// Call is a tool call in an answer or in a request's assistant message.
type Call struct {
	ID, Name, Arguments string
}

// Request is a chat completion request as the server received it.
type Request struct {
	// N counts the server's chat completion requests from 1.
	N    int
	Path string
	// Authorization is the header as sent, "" when absent.
	Authorization string
	Model         string
	Messages      []Message
	// Tools are the names of the function tools offered.
	Tools  []string
	Stream bool
	// Body is the raw request body.
	Body []byte
}

// Message is one message of a request. Array content is joined into
// Content; tool-call arguments sent as an object are kept as JSON text.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []Call
	ToolCallID string
	// Reasoning is the message's reasoning and ReasoningField the field it
	// came in (reasoning_content or reasoning); "" when it has none.
	Reasoning      string
	ReasoningField string
}

// RequireReasoning answers as DeepSeek's thinking mode does: with HTTP 400
// when an assistant message that calls tools lacks its reasoning in
// field, and with next otherwise.
func RequireReasoning(field string, next Step) Step {
	return Step{Respond: func(req Request) Step {
		for i, m := range req.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && (m.ReasoningField != field || m.Reasoning == "") {
				return Step{Status: http.StatusBadRequest, Text: fmt.Sprintf(
					"Missing `%s` field in the assistant message at message index %d.", field, i)}
			}
		}
		return next
	}}
}

// Server is a scripted chat completions server. It is safe for concurrent
// use.
type Server struct {
	// URL is the API's base, ending in /v1: what config.yaml's llm.url holds.
	URL string

	srv  *httptest.Server
	quit chan struct{} // closed when the test ends, to release held answers

	mu       sync.Mutex
	steps    []Step
	requests []Request
	models   *modelsAnswer // GET /models; nil answers 404
}

type modelsAnswer struct {
	status int
	body   string
}

// SetModels makes GET /models list ids, as OpenAI does.
func (s *Server) SetModels(ids ...string) {
	var items []string
	for _, id := range ids {
		items = append(items, fmt.Sprintf(`{"id":%q,"object":"model","created":1764000000,"owned_by":"llmtest"}`, id))
	}
	s.SetModelsAnswer(http.StatusOK, `{"object":"list","data":[`+strings.Join(items, ",")+`]}`)
}

// SetModelsAnswer makes GET /models answer status with body.
func (s *Server) SetModelsAnswer(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = &modelsAnswer{status: status, body: body}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	a := s.models
	s.mu.Unlock()
	if a == nil {
		writeError(w, http.StatusNotFound, "llmtest: no list of models")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// NewServer starts a server that answers with steps, in order, and stops it
// when the test ends. A request beyond the script is answered with a 500
// error that says so.
func NewServer(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{steps: slices.Clone(steps), quit: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.quit)
		s.srv.Close()
	})
	return s
}

// Add appends steps to the script.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests returns the chat completion requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		s.serveModels(w)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, fmt.Sprintf("llmtest: no endpoint %s %s", r.Method, r.URL.Path))
		return
	}
	req, err := decodeRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: "+err.Error())
		return
	}
	step, ok := s.take(&req)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("llmtest: no scripted step left for request %d", req.N))
		return
	}
	if step.Respond != nil {
		step = step.Respond(req)
		step.Respond = nil
	}
	s.answer(w, r, req, step)
}

// take records req, numbering it, and returns the next step of the script.
func (s *Server) take(req *Request) (Step, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, *req)
	if len(s.steps) == 0 {
		return Step{}, false
	}
	step := s.steps[0]
	s.steps = s.steps[1:]
	return step, true
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, step Step) {
	if step.Delay > 0 && !s.wait(r, time.After(step.Delay)) {
		return
	}
	if step.RetryAfter != "" {
		w.Header().Set("Retry-After", step.RetryAfter)
	}
	switch {
	case step.Drop:
		cut(w)
	case step.ContextLength:
		writeJSON(w, http.StatusBadRequest, contextLengthError)
	case step.Body != "":
		writeRaw(w, step)
	case step.Status != 0 && step.Status != http.StatusOK:
		msg := step.Text
		if msg == "" {
			msg = fmt.Sprintf("llmtest: scripted HTTP %d", step.Status)
		}
		writeError(w, step.Status, msg)
	case req.Stream:
		s.stream(w, r, step)
	default:
		writeJSON(w, http.StatusOK, completion(req, step))
	}
}

// wait waits for ch, and reports false when the client or the test went
// away first.
func (s *Server) wait(r *http.Request, ch <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
	case <-s.quit:
	}
	return false
}

// done reports whether the client or the test went away.
func (s *Server) done(r *http.Request) bool {
	select {
	case <-r.Context().Done():
		return true
	case <-s.quit:
		return true
	default:
		return false
	}
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, step Step) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, c := range streamChunks(step) {
		if i > 0 && step.Pace > 0 && !s.wait(r, time.After(step.Pace)) {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", c); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		if step.CutAfter == i+1 {
			cut(w)
			return
		}
		if i == 0 && step.Hold {
			s.wait(r, nil)
			return
		}
		if i == 0 && step.Endless {
			s.flood(w, r, rc)
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// flood sends text chunks until the client or the test goes away.
func (s *Server) flood(w http.ResponseWriter, r *http.Request, rc *http.ResponseController) {
	line := "data: " + marshal(chunk(choice{Delta: &delta{Content: ptr(strings.Repeat("flood ", 100))}})) + "\n\n"
	for !s.done(r) {
		if _, err := fmt.Fprint(w, line); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// cut closes the connection under the handler, so the client sees it drop
// without a proper end of the response.
func cut(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return // not HTTP/1: the handler's return ends the answer instead
	}
	conn.Close()
}

func writeRaw(w http.ResponseWriter, step Step) {
	ct := step.ContentType
	if ct == "" {
		ct = guessType(step.Body)
	}
	w.Header().Set("Content-Type", ct)
	status := step.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	fmt.Fprint(w, step.Body)
}

func guessType(body string) string {
	body = strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(body, "<"):
		return "text/html; charset=utf-8"
	case strings.HasPrefix(body, "{"), strings.HasPrefix(body, "["):
		return "application/json"
	}
	return "text/event-stream"
}

// SSE formats JSON events as a chat completions stream: each one as a data
// line, then the final [DONE]. Tests build unusual streams with it for
// Step.Body.
func SSE(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "data: %s\n\n", e)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}
