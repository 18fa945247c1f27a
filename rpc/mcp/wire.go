package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// maxLine bounds one message, as the SDK's own reader does; a longer line
// is answered and skipped here rather than ending the connection.
const maxLine = 16 << 20

// output is stdout, shared by the SDK and the answers to lines it never
// sees. The SDK writes each message in one Write, so a mutex keeps them
// whole.
type output struct {
	mu sync.Mutex
	w  io.Writer
	// unanswered counts the requests given to the SDK and not yet
	// answered, so that a client that closes its end right after a
	// request still gets the answer.
	unanswered atomic.Int64
}

func (o *output) Write(p []byte) (int, error) {
	if isResponse(p) {
		defer o.unanswered.Add(-1)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(p)
}

// isResponse reports whether a message the SDK writes answers a request:
// it has an id and no method.
func isResponse(line []byte) bool {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.Method == nil && validID(msg.ID)
}

// drain waits, limit at the most, until every request is answered.
func (o *output) drain(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for o.unanswered.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// drainLimit bounds the wait for the answers to the last requests once the
// client's input has ended.
const drainLimit = time.Minute

func (o *output) Close() error { return nil }

// reply writes the error response to a line the SDK is not given.
func (o *output) reply(id json.RawMessage, code int, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, message}})
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err = o.w.Write(append(line, '\n'))
	return err
}

// The JSON-RPC error codes of the lines the filter answers.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// filter copies the messages of in to the SDK through to, one per line,
// and answers the lines the SDK would end the connection over: text that
// is not JSON, JSON that is not one message, a line over maxLine. It
// closes to when in ends.
func filter(in io.Reader, to *io.PipeWriter, out *output, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, errLineTooLong) {
			code, problem, request := check(line, err)
			switch {
			case code != 0:
				log.Warn("mcp: malformed message", "line", n, "problem", problem)
				if err := out.reply(messageID(line), code, problem); err != nil {
					log.Error("mcp: answer a malformed message", "err", err)
				}
			default:
				if request {
					out.unanswered.Add(1)
				}
				if _, err := to.Write(append(line, '\n')); err != nil {
					return // the SDK has closed its end
				}
			}
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			if !errors.Is(err, io.EOF) {
				log.Error("mcp: read stdin", "err", err)
			}
			out.drain(drainLimit)
			to.CloseWithError(err)
			return
		}
	}
}

var errLineTooLong = fmt.Errorf("a message is over %d MiB", maxLine>>20)

// readLine reads one line without its newline. A line over maxLine is
// read to its end and dropped, and reported as errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err == nil || errors.Is(err, io.EOF) {
				return nil, errLineTooLong
			}
			return nil, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

// check says what is wrong with a line as one JSON-RPC message; code 0
// means nothing.
// request says that the line is a request, which the SDK will answer.
func check(line []byte, readErr error) (code int, problem string, request bool) {
	if errors.Is(readErr, errLineTooLong) {
		return codeInvalidRequest, fmt.Sprintf("the message is over %d MiB and was skipped; send smaller messages", maxLine>>20), false
	}
	if !json.Valid(line) {
		return codeParseError, "parse error: the line is not JSON; send one JSON-RPC 2.0 message per line", false
	}
	if t := bytes.TrimSpace(line); t[0] != '{' {
		return codeInvalidRequest, "invalid request: a message is one JSON object; batches are not accepted, send one message per line", false
	}
	var msg struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Method  *string          `json:"method"`
		Result  json.RawMessage  `json:"result"`
		Error   json.RawMessage  `json:"error"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		return codeInvalidRequest, "invalid request: " + shorten(err.Error()), false
	}
	switch {
	case msg.JSONRPC != "2.0":
		return codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, false
	case msg.Method == nil && msg.ID == nil:
		return codeInvalidRequest, "invalid request: the message has neither a method nor an id", false
	case msg.ID != nil && !validID(*msg.ID):
		return codeInvalidRequest, "invalid request: the id must be a string or a number", false
	case msg.Method == nil && msg.Result == nil && msg.Error == nil:
		return codeInvalidRequest, "invalid request: a message with an id and no method must be a response, with a result or an error", false
	}
	return 0, "", msg.ID != nil && msg.Method != nil
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// messageID is the id of a bad request when it can be read, so that the
// client can match the answer; otherwise nil (null).
func messageID(line []byte) json.RawMessage {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &msg) != nil || !validID(msg.ID) {
		return nil
	}
	return msg.ID
}

// shorten keeps a decoder's error short enough to read.
func shorten(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
