// Package llm is the conversation's Model for a real endpoint: any server
// that speaks OpenAI's chat completions API with tools (OpenAI, Ollama,
// vLLM, the llama.cpp server), through the go-openai client.
//
// Complete streams: text reaches onText as it arrives, and tool calls are
// assembled from their deltas. It retries what another try may fix (HTTP
// 429, 500, 502, 503 and 504, and connections dropped before the answer),
// with a growing, jittered wait or the one the endpoint asks for; it drops
// the oldest turns of the history when the request does not fit the model's
// context window; and it reads the variations of the API that servers
// actually send. Every failure of the endpoint is an *APIError whose
// message says what to do and never holds the API key.
package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// Defaults for the zero values of Config's fields.
const (
	DefaultTimeout      = 120 * time.Second
	DefaultMaxTries     = 3
	DefaultMaxBodyBytes = 16 << 20
)

const (
	defaultBackoff = 500 * time.Millisecond // the wait before the second try
	maxBackoff     = 8 * time.Second
)

// Config is how to reach the model.
type Config struct {
	// URL is llm.url as the AIQ CLI reads it: a base ending in /v1, a full
	// .../chat/completions URL, or a bare host, which gets /v1.
	URL string
	// APIKey is sent as a bearer token when set; Ollama needs none.
	APIKey sessionio.Secret
	Model  string
	// Timeout bounds each wait on the endpoint: for its answer to begin,
	// and then between two pieces of the stream. It does not bound a whole
	// answer, which a slow local model may take minutes to stream; ctx does
	// that. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxTries bounds the tries of one request; 0 means DefaultMaxTries.
	MaxTries int
	// HTTPClient sends the requests; nil means one with
	// http.DefaultTransport. Its Transport is wrapped, not changed.
	HTTPClient *http.Client
	// MaxBodyBytes bounds an answer's body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// Model is a conversation.Model backed by a chat completions endpoint. It is
// safe for concurrent use.
type Model struct {
	client   *openai.Client
	model    string
	secret   sessionio.Secret
	timeout  time.Duration
	maxTries int
	// backoff is the wait before the second try, doubled for each further
	// one; tests shorten it.
	backoff time.Duration
	// sleep waits d or until ctx is done; tests replace it to see the waits.
	sleep func(ctx context.Context, d time.Duration) error
	// contents keeps the encodings of the history's contents from one
	// request to the next.
	contents *encodedContents
	// bodies keeps the buffer of a body sent for the next one.
	bodies *bodyBuffers
	// base is the API's base URL, and plain the client under the wrapped
	// transport, for the requests that are not chat completions.
	base  string
	plain *http.Client
}

// New returns a Model for cfg. It fails when the URL or the model name is
// missing or unusable, with a message that says which setting to fix.
func New(cfg Config) (*Model, error) {
	base, err := baseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("set up the model: %w", err)
	}
	name := strings.TrimSpace(cfg.Model)
	if name == "" {
		return nil, errors.New("set up the model: no model named: set model in config.yaml's llm section, or AIQ_MODEL")
	}
	m := &Model{model: name, secret: cfg.APIKey, timeout: cfg.Timeout, maxTries: cfg.MaxTries,
		backoff: defaultBackoff, sleep: sleep, contents: &encodedContents{limit: maxCachedBytes}, bodies: &bodyBuffers{}}
	if m.timeout <= 0 {
		m.timeout = DefaultTimeout
	}
	if m.maxTries <= 0 {
		m.maxTries = DefaultMaxTries
	}
	maxBody := cfg.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	oc := openai.DefaultConfig(cfg.APIKey.Reveal())
	oc.BaseURL = base
	oc.HTTPClient = httpClient(cfg, maxBody)
	m.base, m.plain = base, http.DefaultClient
	if cfg.HTTPClient != nil {
		m.plain = cfg.HTTPClient
	}
	m.client = openai.NewClientWithConfig(oc)
	return m, nil
}

// Format prints the model's name only, under every verb. Without it fmt
// would print the API key: it cannot call the String method of a Secret in
// an unexported field, nor of go-openai's configuration below it. The
// receiver is a value so that a Model printed by value is covered too.
func (m Model) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "llm.Model(%s)", m.model)
}

// httpClient is cfg's client, or a default one, with its transport wrapped.
func httpClient(cfg Config, maxBody int64) *http.Client {
	var c http.Client
	if cfg.HTTPClient != nil {
		c = *cfg.HTTPClient
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &transport{base: base, maxBody: maxBody, secret: cfg.APIKey}
	return &c
}

// Complete sends req and streams the reply's text to onText, and its
// reasoning to req.OnThought: the reasoning fields, and a <think> that
// opens the content. Tool calls written as text in <tool_call> blocks are
// read as tool calls.
//
// A failed try is tried again only while nothing has reached onText: a
// second try would send the same text again, which the user has already
// seen. When the request does not fit the model's context window, the
// oldest turns are left out of it, one at a time, down to the current turn;
// the history itself is not changed.
func (m *Model) Complete(ctx context.Context, req conversation.Request, onText func(string)) (conversation.Reply, error) {
	if onText == nil {
		onText = func(string) {}
	}
	tools := chatTools(req.Tools)
	msgs := req.Messages
	for {
		body, err := m.requestBody(msgs, tools)
		if err != nil {
			return conversation.Reply{}, fmt.Errorf("ask the model: %w", err)
		}
		sent := newSentBody(body, m.bodies)
		reply, err := m.tries(ctx, sent, onText, req.OnThought)
		sent.release()
		var e *APIError
		if !errors.As(err, &e) || !e.contextLength {
			return reply, err
		}
		shorter, ok := dropOldestTurn(msgs)
		if !ok {
			return conversation.Reply{}, tooLong(e)
		}
		msgs = shorter
	}
}

// tooLong is the error for a current turn that does not fit on its own.
func tooLong(e *APIError) *APIError {
	msg := "the question and its tool results do not fit the model's context window; " +
		"ask a narrower question (fewer rows or columns), start a new session, or use a model with a larger context window"
	if e.said != "" {
		msg += " (the endpoint said: " + e.said + ")"
	}
	return &APIError{Status: e.Status, Message: msg, err: ErrContextLength, said: e.said}
}

// tries sends body until it succeeds, fails for good, or runs out of tries.
func (m *Model) tries(ctx context.Context, body *sentBody, onText, onThought func(string)) (conversation.Reply, error) {
	for n := 1; ; n++ {
		reply, err := m.try(ctx, body, onText, onThought)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return conversation.Reply{}, fmt.Errorf("ask the model: %w", ctx.Err())
		}
		var e *APIError
		if !errors.As(err, &e) {
			return conversation.Reply{}, fmt.Errorf("ask the model: %w", err)
		}
		wait, again := m.retryWait(e, n)
		if !again {
			if n > 1 {
				e.Message += fmt.Sprintf("; gave up after %d tries", n)
			}
			return conversation.Reply{}, e
		}
		if err := m.sleep(ctx, wait); err != nil {
			return conversation.Reply{}, fmt.Errorf("ask the model: %w", err)
		}
	}
}

// retryWait is how long to wait before try n+1, and whether to make it.
func (m *Model) retryWait(e *APIError, n int) (time.Duration, bool) {
	switch {
	case !e.retry || n >= m.maxTries || e.RetryAfter > maxRetryAfter:
		return 0, false
	case e.RetryAfter > 0:
		return e.RetryAfter, true
	}
	d := min(m.backoff<<min(n-1, 16), maxBackoff)
	// Half fixed, half random, so that clients that failed together do not
	// come back together.
	return d/2 + rand.N(d/2+1), true
}

// try sends body once. go-openai builds the HTTP request, with its URL and
// headers, and splits the answer's stream; the body it would marshal is
// replaced by ours in transport, which finds it in the request's context.
func (m *Model) try(ctx context.Context, body *sentBody, onText, onThought func(string)) (conversation.Reply, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(m.timeout, func() { cancel(errIdle) })
	defer idle.Stop()
	creq := openai.ChatCompletionRequest{Model: m.model, Stream: true}
	stream, err := m.client.CreateChatCompletionStream(withBody(ctx, body), creq)
	if err != nil {
		return conversation.Reply{}, m.failure(ctx, err, nil)
	}
	defer stream.Close()
	// Close the body as soon as ctx is done, even under a transport that
	// would not end a blocked read itself.
	defer context.AfterFunc(ctx, func() { stream.Close() })()
	r := &reply{onThought: onThought}
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) || (r.finished && errors.Is(err, errCut)) {
			// Some servers end a finished stream without [DONE].
			r.end(onText)
			return r.result(), nil
		}
		if err != nil {
			return conversation.Reply{}, m.failure(ctx, err, r)
		}
		idle.Reset(m.timeout)
		if err := r.add(raw, onText, m.secret); err != nil {
			return conversation.Reply{}, m.failure(ctx, err, r)
		}
	}
}

// failure is the error of a try that failed with err; r is the reply read
// so far, nil when the answer had not begun. It is ctx's error when ctx is
// done, an *APIError when the endpoint failed, and err itself otherwise.
func (m *Model) failure(ctx context.Context, err error, r *reply) error {
	var e *APIError
	var ue *url.Error
	var ne net.Error
	switch {
	case errors.Is(context.Cause(ctx), errIdle):
		e = &APIError{err: context.DeadlineExceeded,
			Message: fmt.Sprintf("the model endpoint sent nothing for %s; it may be overloaded or still loading the model; try again", m.timeout)}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &e):
	case errors.As(err, &ue) || errors.As(err, &ne) || isDropped(err):
		e = connError(err, r != nil)
	default:
		return err // go-openai could not build the request
	}
	if r != nil && r.emitted {
		e.retry = false
		e.Message += "; the answer shown so far is incomplete"
	}
	return e
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
