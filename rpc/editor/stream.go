package editor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessageSize bounds a message body. A larger Content-Length cannot be
// skipped without reading it, so it ends the connection.
const MaxMessageSize = 64 << 20

// maxKeptBody is the largest body buffer kept for the next frame, so that
// one large message does not hold its memory for the rest of the session.
const maxKeptBody = 64 << 10

// maxHeaderLine bounds one header line, so that a peer sending no newline
// cannot make the server buffer without end.
const maxHeaderLine = 4 << 10

// FramingError is a header the server cannot find the next message after:
// a missing or absurd Content-Length. It ends the connection.
type FramingError struct {
	Problem string
}

func (e *FramingError) Error() string {
	return "read message header: " + e.Problem + "; the stream cannot be resynchronised"
}

// stream is a jsonrpc2.Stream over LSP framing that answers a malformed
// message with an error response and goes on reading, where jsonrpc2's
// own stream would end the connection.
type stream struct {
	in   *bufio.Reader
	stop func()    // ends a Read blocked on the input
	rc   io.Closer // the input, closed by Close; may be nil
	out  jsonrpc2.Stream
	// frames is out's writer of a body as it is, for the answers to
	// malformed messages.
	frames frameWriter
	log    *slog.Logger
	// body is the buffer of the last frame's body, reused by the next:
	// jsonrpc2 lets a request borrow its frame only until its handler
	// returns or releases it, which copies what it keeps.
	body []byte
}

func newStream(in io.Reader, w io.WriteCloser, log *slog.Logger) *stream {
	src, stop := closable(in)
	out := jsonrpc2.NewHeaderStream(writeOnly{w})
	s := &stream{in: bufio.NewReaderSize(src, 64<<10), stop: stop, out: out, frames: out.(frameWriter), log: log}
	if c, ok := in.(io.Closer); ok {
		s.rc = c
	}
	return s
}

// Read returns the next well-formed message. A malformed one is answered
// here, with its id as sent when it has one (else null), and skipped.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.readFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		if body == nil {
			continue // a bad header, already answered
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		code, problem := diagnose(body)
		s.reject(ctx, readableID(body), code, problem)
	}
}

// Write writes one message as one frame.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.out.Write(ctx, msg)
}

// Close closes both directions. A Read blocked on the input returns at
// once, which jsonrpc2's Conn.Close waits for.
func (s *stream) Close() error {
	s.stop()
	err := s.out.Close()
	if s.rc != nil {
		err = errors.Join(err, s.rc.Close())
	}
	return err
}

// reject answers a malformed message with its id as sent (nil: null):
// written as bytes, since an id the message cannot have, such as 1.5 or
// one past 64 bits, would otherwise come back as another number.
func (s *stream) reject(ctx context.Context, id json.RawMessage, code jsonrpc2.Code, problem string) {
	s.log.Warn("malformed message", "problem", problem)
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{int64(code), problem}})
	if err == nil {
		_, err = s.frames.WriteFrame(ctx, data)
	}
	if err != nil {
		s.log.Error("answer malformed message", "err", err)
	}
}

// frameWriter writes one body as one frame, under the lock of the
// messages' own writes.
type frameWriter interface {
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// readFrame reads one header block and its body. A body of nil with no
// error is a frame whose header was bad but skippable.
func (s *stream) readFrame(ctx context.Context) ([]byte, int64, error) {
	length, header, err := s.readHeader()
	if err != nil {
		return nil, 0, err
	}
	switch {
	case length == 0:
		s.reject(ctx, nil, jsonrpc2.InvalidRequest, "the message is empty (Content-Length: 0); send one JSON-RPC request per message")
		return nil, 0, nil
	case length < 0:
		s.reject(ctx, nil, jsonrpc2.ParseError, fmt.Sprintf("Content-Length %d is negative; the header was skipped", length))
		return nil, 0, nil
	}
	if cap(s.body) < length || cap(s.body) > maxKeptBody && length <= maxKeptBody {
		s.body = make([]byte, length)
	}
	body := s.body[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, fmt.Errorf("read message body of %d bytes: %w", length, err)
	}
	return body, int64(header + length), nil
}

// readHeader reads header lines up to the blank line and returns the
// Content-Length. Blank lines before a header, and text that is no header
// at all (the rest of a skipped message), are passed over until a line
// holds a Content-Length again.
func (s *stream) readHeader() (length, consumed int, err error) {
	found, sawField := false, false
	for {
		line, err := s.readLine()
		consumed += len(line)
		if err != nil {
			if errors.Is(err, io.EOF) && consumed > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, consumed, err
		}
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 {
			switch {
			case found:
				return length, consumed, nil
			case sawField:
				return 0, consumed, &FramingError{Problem: "the header has no Content-Length"}
			}
			continue
		}
		i := indexFold(text, contentLength)
		if i > 0 && isHeaderName(text[:i]) {
			i = -1 // another header, such as X-Content-Length
		}
		if i < 0 {
			if isHeaderField(text) {
				sawField = true // Content-Type, ignored
			} else {
				s.log.Warn("skipped text outside a message", "bytes", len(line))
			}
			continue
		}
		value := string(bytes.TrimSpace(text[i+len(contentLength):]))
		n, err := strconv.ParseInt(value, 10, 64)
		switch {
		case err != nil && !isInteger(value):
			return 0, consumed, &FramingError{Problem: fmt.Sprintf("Content-Length %q is not a number", truncate(value, 40))}
		case err != nil || n > MaxMessageSize:
			return 0, consumed, &FramingError{Problem: fmt.Sprintf("Content-Length %s is over the %d MiB limit", truncate(value, 40), MaxMessageSize>>20)}
		}
		length, found = int(n), true
	}
}

// readLine returns the next line. It is valid until the next read: a
// whole line is a slice of the reader's buffer, copied only when it is
// longer than the buffer.
func (s *stream) readLine() ([]byte, error) {
	chunk, err := s.in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return s.checkLine(chunk, err)
	}
	line := bytes.Clone(chunk)
	for errors.Is(err, bufio.ErrBufferFull) && len(line) <= maxHeaderLine {
		chunk, err = s.in.ReadSlice('\n')
		line = append(line, chunk...)
	}
	return s.checkLine(line, err)
}

func (s *stream) checkLine(line []byte, err error) ([]byte, error) {
	if len(line) > maxHeaderLine {
		return line, &FramingError{Problem: fmt.Sprintf("a header line is over %d bytes", maxHeaderLine)}
	}
	return line, err
}

const contentLength = "content-length:"

// indexFold returns the index of the first match of the lower-case ASCII
// word in b, regardless of case, or -1.
func indexFold(b []byte, word string) int {
	for i := 0; i+len(word) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return i
		}
	}
	return -1
}

// isHeaderField reports whether line reads "Name: value", as opposed to
// the rest of a skipped body.
func isHeaderField(line []byte) bool {
	name, _, ok := bytes.Cut(line, []byte(":"))
	return ok && len(name) > 0 && isHeaderName(name)
}

// isHeaderName reports whether b holds only the letters, digits and
// dashes of a header name.
func isHeaderName(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func isInteger(s string) bool {
	s = trimSign(s)
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func trimSign(s string) string {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		return s[1:]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// diagnose says what is wrong with a body that jsonrpc2 refused, in words
// that help whoever wrote the client.
func diagnose(body []byte) (jsonrpc2.Code, string) {
	var raw json.RawMessage // checks the whole body, trailing bytes too
	if err := json.Unmarshal(body, &raw); err != nil {
		return jsonrpc2.ParseError, "the message is not valid JSON: " + jsonProblem(body, err)
	}
	// Numbers as written, so that an id can be told apart from the float
	// it would round to.
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return jsonrpc2.ParseError, "the message is not valid JSON: " + jsonProblem(body, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if _, isArray := v.([]any); isArray {
			return jsonrpc2.InvalidRequest, "batches are not supported: send one request per message"
		}
		return jsonrpc2.InvalidRequest, fmt.Sprintf("a message must be a JSON object, not %s", kindOf(v))
	}
	if obj["jsonrpc"] != "2.0" {
		return jsonrpc2.InvalidRequest, `the message lacks "jsonrpc": "2.0"`
	}
	if m, has := obj["method"]; has {
		if _, ok := m.(string); !ok {
			return jsonrpc2.InvalidRequest, fmt.Sprintf("method must be a string, not %s", kindOf(m))
		}
	}
	if id, has := obj["id"]; has {
		if problem := idProblem(id); problem != "" {
			return jsonrpc2.InvalidRequest, problem
		}
	}
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	switch {
	case !hasMethod && !hasResult && !hasError:
		return jsonrpc2.InvalidRequest, "the message has no method: a request needs a method name"
	case hasMethod && (hasResult || hasError):
		return jsonrpc2.InvalidRequest, "the message has both a method and a result or error"
	}
	return jsonrpc2.InvalidRequest, "the message is not a valid JSON-RPC 2.0 request"
}

// readableID is the id of a message that is an object with a string or a
// number as its id, as sent, so that its answer reaches the request the
// client waits on; else nil, written as null.
func readableID(body []byte) json.RawMessage {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 {
		return nil
	}
	switch msg.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return msg.ID
	}
	return nil
}

// idProblem says what is wrong with an id, or "" when it is a string, an
// integer of 64 bits or null.
func idProblem(id any) string {
	switch v := id.(type) {
	case string, nil:
		return ""
	case json.Number:
		if _, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
			return ""
		}
		if isInteger(v.String()) {
			return fmt.Sprintf("id %s does not fit in 64 bits: use a smaller integer or a string", truncate(v.String(), 40))
		}
		return fmt.Sprintf("id must be a string or an integer, not the number %s", truncate(v.String(), 40))
	}
	return fmt.Sprintf("id must be a string or an integer, not %s", kindOf(id))
}

func jsonProblem(body []byte, err error) string {
	if isTooDeep(err) {
		return nestedTooDeeply
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v at byte %d", syn, syn.Offset)
	}
	return err.Error()
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// nestedTooDeeply says why JSON past maxJSONDepth was refused.
var nestedTooDeeply = fmt.Sprintf("nested too deeply (limit %d)", maxJSONDepth)

// isTooDeep reports whether err is encoding/json's refusal of JSON nested
// past its limit, which it gives only in words.
func isTooDeep(err error) bool {
	return err != nil && strings.Contains(err.Error(), "exceeded max depth")
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// closable returns a reader of in whose Read ends when stop is called. A
// pipe of this process, and a file the runtime polls (a pipe made by
// os.Pipe, a socket), end their Read when closed, which Close does; for
// them stop does nothing. Any other input, stdin on a pipe for one, is
// read through a closableReader.
func closable(in io.Reader) (io.Reader, func()) {
	switch in := in.(type) {
	case *io.PipeReader:
		return in, func() {}
	case *os.File:
		// SetReadDeadline fails on a file that is not polled.
		if in.SetReadDeadline(time.Time{}) == nil {
			return in, func() {}
		}
	}
	r := newClosableReader(in)
	return r, r.close
}

// closableReader reads its input on a goroutine of its own, so that close
// ends a Read that is blocked on the input. Closing the input is not
// enough: an *os.File in blocking mode, such as stdin on a pipe, stays in
// its read(2) after Close, and the connection, whose Close waits for the
// read loop, would then hang after exit or a signal until the client
// closed its end.
type closableReader struct {
	in     io.Reader
	start  sync.Once
	chunks chan readChunk
	closed chan struct{}
	stop   sync.Once
	rest   []byte // what the last chunk had beyond the caller's buffer
	err    error  // the input's error, once the chunks before it are read
}

type readChunk struct {
	data []byte
	err  error
}

func newClosableReader(in io.Reader) *closableReader {
	return &closableReader{in: in, chunks: make(chan readChunk), closed: make(chan struct{})}
}

// pump reads the input until it fails or the reader is closed, a chunk
// ahead of Read, so that it waits in the input's Read when the next
// message comes. It reads into two buffers in turn: Read takes a chunk
// only once it has copied out the one before, so the buffer the pump
// fills next is free. After a close it may stay blocked in the input's
// Read; it then ends with the input or the process.
func (r *closableReader) pump() {
	var bufs [2][]byte
	for i := 0; ; i ^= 1 {
		if bufs[i] == nil {
			bufs[i] = make([]byte, 32<<10)
		}
		n, err := r.in.Read(bufs[i])
		select {
		case r.chunks <- readChunk{data: bufs[i][:n], err: err}:
		case <-r.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read is called by one goroutine at a time.
func (r *closableReader) Read(p []byte) (int, error) {
	r.start.Do(func() { go r.pump() })
	for len(r.rest) == 0 && r.err == nil {
		select {
		case c := <-r.chunks:
			r.rest, r.err = c.data, c.err
		case <-r.closed:
			return 0, io.ErrClosedPipe
		}
	}
	if len(r.rest) > 0 {
		n := copy(p, r.rest)
		r.rest = r.rest[n:]
		return n, nil
	}
	return 0, r.err
}

func (r *closableReader) close() {
	r.stop.Do(func() { close(r.closed) })
}

// writeOnly lends jsonrpc2's header stream a writer: the server reads with
// its own framing.
type writeOnly struct {
	w io.WriteCloser
}

func (w writeOnly) Read([]byte) (int, error)    { return 0, io.EOF }
func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w writeOnly) Close() error                { return w.w.Close() }
