package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/rpc/internal/jsonline"
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
	// params are the params of the requests given to the SDK, by id, until
	// they are answered: an error of the SDK's that names a member of
	// them is said with the member's path in the request.
	paramsMu sync.Mutex
	params   map[string]json.RawMessage
}

// remember keeps the params of a request given to the SDK.
func (o *output) remember(line []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	o.paramsMu.Lock()
	defer o.paramsMu.Unlock()
	if o.params == nil {
		o.params = map[string]json.RawMessage{}
	}
	o.params[idKey(msg.ID)] = msg.Params
}

// forget returns the params of the request id and forgets them.
func (o *output) forget(id json.RawMessage) json.RawMessage {
	o.paramsMu.Lock()
	defer o.paramsMu.Unlock()
	key := idKey(id)
	params := o.params[key]
	delete(o.params, key)
	return params
}

// idKey is an id as the SDK writes it back: a string id may be escaped
// otherwise than it was sent.
func idKey(id json.RawMessage) string {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return string(id)
	}
	key, _ := json.Marshal(v)
	return string(key)
}

func (o *output) Write(p []byte) (int, error) {
	n := len(p)
	if isResponse, id, errMember := response(p); isResponse {
		defer o.unanswered.Add(-1)
		params := o.forget(id)
		if errMember != nil {
			if line := reword(p, errMember, params); line != nil {
				p = line
			}
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// response reports whether a message the SDK writes answers a request (it
// has an id and no method), and returns its id and its error member, if
// any.
func response(line []byte) (bool, json.RawMessage, json.RawMessage) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != nil || !jsonline.IsID(msg.ID, false) {
		return false, nil, nil
	}
	return true, msg.ID, msg.Error
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
	if id == nil || !utf8.Valid(id) {
		id = json.RawMessage("null") // an id that is not text cannot be sent back as it came
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
	codeParseError     = jsonline.CodeParseError
	codeInvalidRequest = jsonline.CodeInvalidRequest
)

// filter copies the messages of in to the SDK through to, one per line,
// and answers the lines the SDK would end the connection over: text that
// is not JSON, JSON that is not one message, a line over maxLine. When in
// ends it calls ended, which cancels the calls still running, waits for
// the answers to the requests passed on, then closes to.
func filter(in io.Reader, to *io.PipeWriter, out *output, log *slog.Logger, ended func()) {
	checkAndKeep := func(line []byte, readErr error) (int, string, bool) {
		code, problem, request := check(line, readErr)
		if request {
			out.remember(line)
		}
		return code, problem, request
	}
	f := jsonline.Filter{Max: maxLine, Check: checkAndKeep, Reply: out.reply, Requests: &out.unanswered, Log: log.With("front", "mcp")}
	if err := f.Run(in, to); err != nil {
		ended()
		out.drain(drainLimit)
		to.CloseWithError(err)
	}
}

// check says what is wrong with a line as one JSON-RPC message, in words;
// code 0 means nothing. request says that the line is a request, which
// the SDK will answer.
func check(line []byte, readErr error) (code int, problem string, request bool) {
	if errors.Is(readErr, jsonline.ErrTooLong) {
		return codeInvalidRequest, jsonline.TooLong(maxLine), false
	}
	if !json.Valid(line) {
		return codeParseError, jsonline.NotJSON(line, "send one JSON-RPC 2.0 message per line"), false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(line, &members) != nil || members == nil {
		return codeInvalidRequest, fmt.Sprintf("invalid request: a message is one JSON object, not %s; batches are not accepted, send one message per line", jsonline.Kind(line)), false
	}
	id, hasID := members["id"]
	method, hasMethod := members["method"]
	var version string
	_, hasResult := members["result"]
	_, hasError := members["error"]
	switch {
	case json.Unmarshal(members["jsonrpc"], &version) != nil || version != "2.0":
		return codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, false
	case hasMethod && jsonline.Kind(method) != "a string":
		return codeInvalidRequest, fmt.Sprintf("invalid request: method must be a string, not %s", jsonline.Kind(method)), false
	case !hasMethod && !hasID:
		return codeInvalidRequest, "invalid request: the message has neither a method nor an id", false
	case hasID && !jsonline.IsID(id, false):
		return codeInvalidRequest, fmt.Sprintf("invalid request: the id must be a string or a number, not %s", jsonline.Kind(id)), false
	case !hasMethod && !hasResult && !hasError:
		return codeInvalidRequest, "invalid request: a message with an id and no method must be a response, with a result or an error", false
	case hasMethod && hasID && exactID(id) != "":
		return codeInvalidRequest, exactID(id), false
	case hasID && !utf8.Valid(id):
		// Go would answer it with U+FFFD in place of the bytes sent.
		return codeInvalidRequest, "invalid request: the id is not valid UTF-8 text, so it cannot be answered as sent", false
	}
	return 0, "", hasID && hasMethod
}
