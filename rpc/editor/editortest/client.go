// Package editortest is a JSON-RPC client for tests of aiq-rpc: it speaks the
// LSP framing over any reader and writer (the pipes of a child process or
// of an in-process server), sends raw bytes for malformed-input tests, and
// waits for responses and notifications with a timeout, never a sleep.
package editortest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeout bounds every wait of a Client. It only stops a hung test: a
// loaded machine (CI runs the suite once beside a CPU load) can take many
// seconds for what a quiet one does at once, so it is minutes.
const Timeout = 3 * time.Minute

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Message is any message the server sent.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	// Raw is the message as it came.
	Raw []byte `json:"-"`
}

// IsResponse reports whether m answers a request.
func (m Message) IsResponse() bool { return m.Method == "" }

// Handler answers a request from the server.
type Handler func(params json.RawMessage) (any, *Error)

// Client is one connection to a server.
type Client struct {
	t testing.TB
	w io.Writer

	writeMu sync.Mutex
	nextID  int

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever something arrives
	pending  map[string]Message
	nulls    []Message // error responses with id null, oldest first
	messages []Message // every message, in order
	handlers map[string]Handler
	readErr  error
}

// New starts a client reading from r and writing to w.
func New(t testing.TB, r io.Reader, w io.Writer) *Client {
	c := &Client{t: t, w: w, changed: make(chan struct{}), pending: map[string]Message{}, handlers: map[string]Handler{}}
	go c.readLoop(bufio.NewReader(r))
	return c
}

// Handle answers the server's requests of method with h.
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	c.handlers[method] = h
	c.mu.Unlock()
}

func (c *Client) readLoop(r *bufio.Reader) {
	tp := textproto.NewReader(r)
	for {
		body, err := readFrame(tp, r)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			c.broadcastLocked()
			c.mu.Unlock()
			return
		}
		var m Message
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("rpctest: the server sent a body that is not JSON: %v: %q", err, body)
			continue
		}
		m.Raw = body
		c.receive(m)
	}
}

func readFrame(tp *textproto.Reader, r *bufio.Reader) ([]byte, error) {
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(header.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("bad Content-Length from the server: %q", header.Get("Content-Length"))
	}
	body := make([]byte, n)
	_, err = io.ReadFull(r, body)
	return body, err
}

func (c *Client) receive(m Message) {
	c.mu.Lock()
	h := c.handlers[m.Method]
	switch {
	case m.IsResponse() && (len(m.ID) == 0 || string(m.ID) == "null"):
		c.nulls = append(c.nulls, m)
	case m.IsResponse():
		c.pending[string(m.ID)] = m
	}
	c.messages = append(c.messages, m)
	c.broadcastLocked()
	c.mu.Unlock()
	if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
		go c.answer(m, h)
	}
}

func (c *Client) answer(m Message, h Handler) {
	var result any
	var rerr *Error
	if h == nil {
		rerr = &Error{Code: -32601, Message: "rpctest: no handler for " + m.Method}
	} else {
		result, rerr = h(m.Params)
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	c.SendJSON(resp)
}

func (c *Client) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Send writes raw bytes, framing included: for malformed input.
func (c *Client) Send(raw []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.w.Write(raw); err != nil {
		c.t.Errorf("rpctest: write: %v", err)
	}
}

// SendBody writes body in a frame with the right Content-Length.
func (c *Client) SendBody(body []byte) {
	c.Send(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...))
}

// SendJSON writes v as one framed message.
func (c *Client) SendJSON(v any) {
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatalf("rpctest: encode: %v", err)
	}
	c.SendBody(body)
}

// Start sends a request and returns its id without waiting.
func (c *Client) Start(method string, params any) json.RawMessage {
	c.writeMu.Lock()
	c.nextID++
	id := json.RawMessage(strconv.Itoa(c.nextID))
	c.writeMu.Unlock()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	c.SendJSON(req)
	return id
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	req := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		req["params"] = params
	}
	c.SendJSON(req)
}

// Wait returns the response to id.
func (c *Client) Wait(id json.RawMessage) Message {
	c.t.Helper()
	m, ok := c.waitFor(func() (Message, bool) {
		m, ok := c.pending[string(id)]
		if ok {
			delete(c.pending, string(id))
		}
		return m, ok
	})
	if !ok {
		c.t.Fatalf("rpctest: no response to request %s within %v (read: %v)", id, Timeout, c.err())
	}
	return m
}

// Call sends a request and waits for its response.
func (c *Client) Call(method string, params any) Message {
	c.t.Helper()
	return c.Wait(c.Start(method, params))
}

// Result calls method and decodes its result into v, failing the test on
// an error response.
func (c *Client) Result(method string, params any, v any) {
	c.t.Helper()
	m := c.Call(method, params)
	if m.Error != nil {
		c.t.Fatalf("rpctest: %s: %v", method, m.Error)
	}
	if v != nil {
		if err := json.Unmarshal(m.Result, v); err != nil {
			c.t.Fatalf("rpctest: decode result of %s: %v: %s", method, err, m.Result)
		}
	}
}

// WaitNullError returns the next error response with id null not yet
// taken: the answer to a malformed message.
func (c *Client) WaitNullError() Message {
	c.t.Helper()
	m, ok := c.waitFor(func() (Message, bool) {
		if len(c.nulls) == 0 {
			return Message{}, false
		}
		m := c.nulls[0]
		c.nulls = c.nulls[1:]
		return m, true
	})
	if !ok {
		c.t.Fatalf("rpctest: no error response with id null within %v (read: %v)", Timeout, c.err())
	}
	return m
}

// Messages returns every message received so far.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.messages...)
}

// Notifications returns the notifications of method received so far.
func (c *Client) Notifications(method string) []Message {
	var out []Message
	for _, m := range c.Messages() {
		if m.Method == method && (len(m.ID) == 0 || string(m.ID) == "null") {
			out = append(out, m)
		}
	}
	return out
}

// WaitNotification waits until a notification of method arrives whose
// params contain substr, and returns it.
func (c *Client) WaitNotification(method, substr string) Message {
	c.t.Helper()
	m, ok := c.waitFor(func() (Message, bool) {
		for _, m := range c.messages {
			if m.Method == method && strings.Contains(string(m.Params), substr) {
				return m, true
			}
		}
		return Message{}, false
	})
	if !ok {
		c.t.Fatalf("rpctest: no %s notification with %q within %v", method, substr, Timeout)
	}
	return m
}

// Closed waits until the server closes its output, and returns why
// reading stopped.
func (c *Client) Closed() error {
	c.t.Helper()
	_, ok := c.waitFor(func() (Message, bool) { return Message{}, c.readErr != nil })
	if !ok {
		c.t.Fatalf("rpctest: the server did not close its output within %v", Timeout)
	}
	return c.err()
}

func (c *Client) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// waitFor calls found under the lock whenever a message arrives, until it
// reports true, reading ends, or Timeout passes.
func (c *Client) waitFor(found func() (Message, bool)) (Message, bool) {
	deadline := time.NewTimer(Timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		m, ok := found()
		changed, done := c.changed, c.readErr != nil
		c.mu.Unlock()
		if ok {
			return m, true
		}
		if done {
			return Message{}, false
		}
		select {
		case <-changed:
		case <-deadline.C:
			return Message{}, false
		}
	}
}
