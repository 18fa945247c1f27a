package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/rpc/internal/jsonline"
)

// maxLine bounds one message. The SDK's reader gives up the whole
// connection on a line over 10 MiB; a longer one is answered and skipped
// here instead.
const maxLine = 8 << 20

// output is stdout, shared by the SDK's connection and the answers to
// lines the SDK never sees. Each Write is one whole message, so a mutex
// keeps them from interleaving.
type output struct {
	mu    sync.Mutex
	w     io.Writer
	after []afterResponse
	// unanswered counts the requests given to the SDK and not yet
	// answered, so that the agent answers them all before it ends.
	unanswered atomic.Int64
}

// afterResponse runs fn once a response holding match has been written:
// what a client may only hear about once it has that response, such as
// the commands of a session it has just been given the id of.
type afterResponse struct {
	match []byte
	fn    func()
}

func (o *output) Write(p []byte) (int, error) {
	if isResponse(p) {
		defer o.unanswered.Add(-1)
	}
	return o.write(p)
}

// isResponse reports whether a line the SDK writes answers a request: it
// has an id and no method. The SDK writes the keys in this order.
func isResponse(line []byte) bool {
	if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`)) {
		return false // a notification
	}
	var msg struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.Method == nil
}

// drain waits, limit at the most, until every request is answered: a
// client may close its end right after a request.
func (o *output) drain(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for o.unanswered.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

func (o *output) write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.w.Write(p)
	if err == nil && len(o.after) > 0 && bytes.Contains(p, []byte(`"result"`)) {
		kept := o.after[:0]
		for _, a := range o.after {
			if bytes.Contains(p, a.match) {
				go a.fn()
				continue
			}
			kept = append(kept, a)
		}
		o.after = kept
	}
	return n, err
}

// onResponse registers fn to run after the response that holds match.
func (o *output) onResponse(match []byte, fn func()) {
	o.mu.Lock()
	o.after = append(o.after, afterResponse{match: match, fn: fn})
	o.mu.Unlock()
}

// reply writes an error response to a line the SDK is not given.
func (o *output) reply(id json.RawMessage, code int, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	line, err := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Error   *sdk.RequestError `json:"error"`
	}{"2.0", id, &sdk.RequestError{Code: code, Message: message}})
	if err != nil {
		return err
	}
	_, err = o.write(append(line, '\n'))
	return err
}

// The JSON-RPC error codes.
const (
	codeParseError     = jsonline.CodeParseError
	codeInvalidRequest = jsonline.CodeInvalidRequest
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// filter copies the messages of in to the SDK through to, one per line,
// and answers the lines the SDK would only log and drop: text that is not
// JSON, JSON that is not a message, and lines too long for it. It closes
// to when in ends.
func filter(in io.Reader, to *io.PipeWriter, out *output, log *slog.Logger) {
	f := jsonline.Filter{Max: maxLine, Check: check, Reply: out.reply, NullID: true, Requests: &out.unanswered, Log: log}
	if err := f.Run(in, to); err != nil {
		to.CloseWithError(err)
	}
}

// check says what is wrong with a line as a JSON-RPC message, in the shape
// the SDK reads; code 0 means nothing. request says that the line is a
// request, which the SDK will answer.
func check(line []byte, readErr error) (code int, problem string, request bool) {
	if errors.Is(readErr, jsonline.ErrTooLong) {
		return codeInvalidRequest, jsonline.TooLong(maxLine), false
	}
	if !json.Valid(line) {
		return codeParseError, jsonline.NotJSON(line, "send one JSON-RPC 2.0 message per line, as ACP requires"), false
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return codeInvalidRequest, fmt.Sprintf("invalid request: a message is a JSON object, not %s; send one JSON-RPC 2.0 object per line (ACP has no batches)", jsonline.Kind(line)), false
	}
	id, hasID := members["id"]
	if hasID && !jsonline.IsID(id, true) {
		return codeInvalidRequest, "invalid request: the id must be a string, a number or null", false
	}
	var version string
	if json.Unmarshal(members["jsonrpc"], &version) != nil || version != "2.0" {
		return codeInvalidRequest, `invalid request: the message lacks "jsonrpc": "2.0"`, false
	}
	method, hasMethod := members["method"]
	var name string
	if hasMethod && json.Unmarshal(method, &name) != nil {
		return codeInvalidRequest, fmt.Sprintf("invalid request: method must be a string, not %s", jsonline.Kind(method)), false
	}
	if !hasMethod && !hasID {
		return codeInvalidRequest, "invalid request: the message has neither a method nor an id", false
	}
	_, hasResult := members["result"]
	_, hasError := members["error"]
	if !hasMethod && !hasResult && !hasError {
		return codeInvalidRequest, "invalid request: a message with an id and no method must be a response, with a result or an error", false
	}
	// The SDK takes a request with a null id for a notification and
	// answers nothing; the client, which sent an id, waits for an answer.
	if hasMethod && hasID && jsonline.Kind(id) == "null" {
		return codeInvalidRequest, "invalid request: a request's id must be a string or a number, not null; a message without an id is a notification", false
	}
	if e, ok := members["error"]; ok && !hasMethod && jsonline.Kind(e) != "an object" && jsonline.Kind(e) != "null" {
		return codeInvalidRequest, fmt.Sprintf("invalid request: error must be an object, not %s", jsonline.Kind(e)), false
	}
	return 0, "", hasID && hasMethod && name != "$/cancel_request"
}
