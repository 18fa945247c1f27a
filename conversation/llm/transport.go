package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
)

// transport is the RoundTripper under the go-openai client. go-openai
// builds the requests and splits the stream into events; transport mends
// what it gets wrong for this use, in both directions:
//   - the body is the one requestBody built, not go-openai's (see
//     requestBody for why);
//   - an HTTP error answer becomes an *APIError here, where its status and
//     Retry-After header are still at hand;
//   - a successful answer's body is bounded and rewritten as the plain
//     stream of data lines that go-openai's reader expects (see eventBody).
type transport struct {
	base    http.RoundTripper
	maxBody int64
	secret  sessionio.Secret // to keep it out of quoted messages
}

// RoundTrip sends req and checks the answer.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req, err := withRequestBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode >= 400:
		defer resp.Body.Close()
		return nil, statusError(resp, t.secret, time.Now())
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		resp.Body = newEventBody(resp.Body, t.maxBody, t.secret)
	}
	// Anything else is a redirect, which the http.Client follows.
	return resp, nil
}

// bodyKey is the context key of the body a request is sent with.
type bodyKey struct{}

// withBody returns ctx carrying body, the JSON body that transport sends
// in place of the one go-openai marshalled.
func withBody(ctx context.Context, body *sentBody) context.Context {
	return context.WithValue(ctx, bodyKey{}, body)
}

// withRequestBody returns req with the body its context carries, on a copy:
// a RoundTripper must not change its request. Only Model.try sends
// requests, each with its body.
func withRequestBody(req *http.Request) (*http.Request, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	body, ok := req.Context().Value(bodyKey{}).(*sentBody)
	if !ok {
		return nil, errors.New("send the request: no request body was built")
	}
	out := req.Clone(req.Context())
	out.Body = body.reader()
	out.GetBody = func() (io.ReadCloser, error) { return body.reader(), nil }
	out.ContentLength = body.size
	return out, nil
}

// errTooLarge ends an answer longer than the bound.
type errTooLarge struct{ limit int64 }

func (e errTooLarge) Error() string {
	return fmt.Sprintf("the answer is longer than %d bytes", e.limit)
}

// boundedReader reads at most limit bytes, then fails with errTooLarge.
type boundedReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the bound: a body that ends exactly here is fine.
		var one [1]byte
		if n, err := b.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, errTooLarge{b.limit}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// eventBody rewrites an answer's body as the stream go-openai reads: one
// "data: {...}" line per event, then "data: [DONE]". Along the way it
//   - drops comments, blank lines and the event, id and retry fields, which
//     go-openai would gather as an error and count towards its limit;
//   - turns an error event (an "event: error" field, or data that is an
//     error object) into data go-openai passes on rather than swallows;
//   - turns a plain JSON answer into one data line, for servers that ignore
//     "stream": true;
//   - merges a run of plain text events that one read already brought into
//     one event (see hold);
//   - fails with an *APIError when the body is not a stream at all, ends
//     before [DONE], or grows past the bound.
type eventBody struct {
	src    *bufio.Reader
	body   io.Closer
	limit  int64
	secret sessionio.Secret

	buf     []byte // holds out
	out     []byte // rewritten bytes not yet read
	err     error  // the error after out
	started bool   // a stream field was seen
	done    bool   // [DONE] was seen
	event   string // the current event's type
	held    held   // plain text events not yet written to out
	close   sync.Once
}

// held is a run of plain text events read but not yet written out.
type held struct {
	first []byte // the first event's data, as it came
	text  []byte // the text of all of them
	n     int
}

func newEventBody(body io.ReadCloser, limit int64, secret sessionio.Secret) *eventBody {
	r := &boundedReader{r: body, left: limit, limit: limit}
	return &eventBody{src: bufio.NewReader(r), body: body, limit: limit, secret: secret}
}

// Read returns the rewritten stream.
func (b *eventBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		b.out = b.buf[:0]
		b.err = b.next()
		b.buf = b.out[:0]
	}
	if len(b.out) == 0 {
		return 0, b.err
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// Close closes the body. It may be called more than once, and while Read
// runs: that is how a cancelled request ends the stream.
func (b *eventBody) Close() error {
	var err error
	b.close.Do(func() { err = b.body.Close() })
	return err
}

// next reads one line and appends its rewriting to out.
func (b *eventBody) next() error {
	if b.held.n > 0 && !b.lineBuffered() {
		b.flush() // never wait for more to merge
		return nil
	}
	line, err := b.readLine()
	if err != nil && err != io.EOF {
		return b.end(err) // a line cut short is not worth reading
	}
	if len(line) > 0 || err == nil {
		if lerr := b.line(bytes.TrimRight(line, "\r\n")); lerr != nil {
			return lerr
		}
	}
	if err != nil {
		b.flush()
		return b.end(err)
	}
	return nil
}

// lineBuffered reports whether a whole line can be read without waiting.
func (b *eventBody) lineBuffered() bool {
	buf, _ := b.src.Peek(b.src.Buffered())
	return bytes.IndexByte(buf, '\n') >= 0
}

// readLine reads up to and including the next newline, however long the
// line: the bound on the body bounds it.
func (b *eventBody) readLine() ([]byte, error) {
	line, err := b.src.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	long := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = b.src.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

func (b *eventBody) line(line []byte) error {
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimSpace(value)
	switch {
	case len(line) == 0:
		b.event = "" // a blank line ends an event
	case line[0] == ':': // a comment, such as a keep-alive
	case string(field) == "data":
		b.started = true
		if len(value) > 0 { // an empty data field carries nothing
			b.data(value)
		}
	case string(field) == "event":
		b.started = true
		b.event = string(value)
	case string(field) == "id" || string(field) == "retry":
		b.started = true
	case b.started: // an unknown field, which SSE says to ignore
	case line[0] == '{' || line[0] == '[':
		return b.whole(line)
	default:
		return b.notStream(line)
	}
	return nil
}

// data rewrites one data field.
func (b *eventBody) data(value []byte) {
	if b.event == "" {
		if text, ok := plainText(value); ok {
			b.hold(value, text)
			return
		}
	}
	b.flush()
	switch {
	case string(value) == "[DONE]":
		b.done = true
		b.out = append(b.out, "data: [DONE]\n"...)
	case b.event == "error":
		b.out = append(b.out, `data: { "error": `...)
		b.out = append(b.out, value...)
		b.out = append(b.out, "}\n"...)
	case bytes.HasPrefix(value, []byte(`{"error":`)):
		// go-openai takes a line that starts so for an error of its own
		// format and drops it when the format differs; a space keeps the
		// line for reply.add, which reads every format.
		b.out = append(b.out, "data: { "...)
		b.out = append(b.out, value[1:]...)
		b.out = append(b.out, '\n')
	default:
		b.out = append(b.out, "data: "...)
		b.out = append(b.out, value...)
		b.out = append(b.out, '\n')
	}
}

// hold keeps a plain text event back while more can be read at once. An
// answer streams hundreds of small pieces of text, and go-openai's reader
// and reply.add spend more on each event than on its text: a run of them
// that arrived together goes on as one event with their texts joined,
// which the reply reads the same. The texts need no escapes (see
// plainText), so joined they are still a JSON string.
func (b *eventBody) hold(value []byte, text string) {
	h := &b.held
	if h.n == 0 {
		h.first = append(h.first, value...)
	}
	h.text = append(h.text, text...)
	h.n++
}

// flush writes out the held events: one as it came, more as one.
func (b *eventBody) flush() {
	h := &b.held
	switch {
	case h.n == 1:
		b.out = append(b.out, "data: "...)
		b.out = append(b.out, h.first...)
		b.out = append(b.out, '\n')
	case h.n > 1:
		b.out = append(b.out, `data: {"choices":[{"index":0,"delta":{"content":"`...)
		b.out = append(b.out, h.text...)
		b.out = append(b.out, "\"}}]}\n"...)
	}
	h.first, h.text, h.n = h.first[:0], h.text[:0], 0
}

// whole rewrites a plain JSON answer, of which first is the first line, as
// one event.
func (b *eventBody) whole(first []byte) error {
	// first is in src's buffer, which reading the rest may overwrite.
	all := append([]byte(nil), first...)
	rest, err := io.ReadAll(b.src)
	if err != nil {
		return b.readError(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, append(all, rest...)); err != nil {
		return &APIError{Message: "the model endpoint answered with malformed JSON: " + err.Error()}
	}
	b.started, b.done = true, true
	b.out = append(b.out, "data: "...)
	b.out = append(b.out, compact.Bytes()...)
	b.out = append(b.out, "\ndata: [DONE]\n"...)
	return io.EOF
}

func (b *eventBody) notStream(line []byte) error {
	if line[0] == '<' {
		return &APIError{Message: "the model endpoint answered with an HTML page, not a chat completion; check url in config.yaml or AIQ_LLM_URL (usually ending in /v1)"}
	}
	// Far more than is quoted, so that a key cut in two here is cut away.
	start := string(line[:min(len(line), 4096)])
	return &APIError{Message: fmt.Sprintf("the model endpoint answered with something other than a chat completion (%q); check url in config.yaml or AIQ_LLM_URL", quote(start, b.secret, 80))}
}

// end is the error that follows the last line.
func (b *eventBody) end(err error) error {
	switch {
	case err != io.EOF:
		return b.readError(err)
	case b.done:
		return io.EOF
	case !b.started:
		return &APIError{Message: "the model endpoint sent an empty answer", retry: true}
	}
	return &APIError{Message: "the model endpoint's stream ended before the answer was complete", retry: true, err: errCut}
}

func (b *eventBody) readError(err error) error {
	var big errTooLarge
	if errors.As(err, &big) {
		return &APIError{Message: fmt.Sprintf("the model endpoint's answer is longer than %s; it was cut off", sizeText(big.limit))}
	}
	return err // a connection's error, or the request's cancellation
}

// errCut marks a stream that ended without [DONE]: a finished reply may
// still be used.
var errCut = errors.New("stream ended without [DONE]")

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
