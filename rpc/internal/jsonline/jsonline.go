// Package jsonline reads JSON-RPC 2.0 messages framed one per line, as the
// stdio transports of ACP and MCP frame them, and says in words what is
// wrong with a line that is not one message. Both front ends put it in
// front of their SDK, whose own reader would drop such a line unanswered
// or end the connection over it.
package jsonline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/aiq/aiq-rpc/sessionio"
)

// The JSON-RPC error codes of the lines a front end answers itself.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// MaxDepth is encoding/json's nesting limit, past which no SDK built on it
// can read a message.
const MaxDepth = 10000

// ErrTooLong reports a line over a Reader's limit, which was read to its
// end and dropped.
var ErrTooLong = errors.New("the line is over the limit")

// Reader reads lines of at most Max bytes.
type Reader struct {
	r   *bufio.Reader
	max int
}

// NewReader returns a Reader of in whose lines are at most max bytes.
func NewReader(in io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(in, 64<<10), max: max}
}

// ReadLine reads one line without its line ending. A line over the limit
// is read to its end and dropped, and reported as ErrTooLong, so that the
// next line is read whole.
func (r *Reader) ReadLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(line)+len(chunk) > r.max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.r.ReadSlice('\n')
			}
			if err == nil || errors.Is(err, io.EOF) {
				return nil, ErrTooLong
			}
			return nil, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

// TooLong is the answer to a line over max bytes.
func TooLong(max int) string {
	return fmt.Sprintf("the message is over %d MiB and was skipped; send smaller messages", max>>20)
}

// NotJSON is the answer to a line that is not valid JSON: too deeply
// nested, or not JSON at all, with hint saying how to frame messages.
func NotJSON(line []byte, hint string) string {
	if NestedDeeperThan(line, MaxDepth) {
		return fmt.Sprintf("parse error: the message is nested too deeply (limit %d)", MaxDepth)
	}
	return "parse error: the line is not JSON; " + hint
}

// NestedDeeperThan reports whether the arrays and objects of data, read
// outside strings, nest deeper than limit.
func NestedDeeperThan(data []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// Kind names the kind of a valid JSON value, for messages: "an object",
// "an array", "a string", "a boolean", "null", "a number" or "nothing".
func Kind(raw json.RawMessage) string { return sessionio.Kind(raw) }

// IsID reports whether raw, a valid JSON value, is a string or a number,
// or null when nullOK: what JSON-RPC 2.0 takes as an id.
func IsID(raw json.RawMessage, nullOK bool) bool {
	switch Kind(raw) {
	case "a string", "a number":
		return true
	case "null":
		return nullOK
	}
	return false
}

// MessageID is the id of a bad message when it can be read, so that the
// client can match the answer; otherwise nil, which an answer writes as
// null.
func MessageID(line []byte, nullOK bool) json.RawMessage {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 || !IsID(msg.ID, nullOK) {
		return nil
	}
	return msg.ID
}

// Filter passes the messages of a stream on to an SDK's reader, one per
// line, and answers itself the lines the SDK would drop unanswered or end
// the connection over.
type Filter struct {
	// Max bounds a line, in bytes.
	Max int
	// Check says what is wrong with a line (code 0: nothing), and whether
	// it is a request, which the SDK will answer.
	Check func(line []byte, readErr error) (code int, problem string, request bool)
	// Reply answers a line Check found wrong.
	Reply func(id json.RawMessage, code int, problem string) error
	// NullID says that null is an id, as in ACP; MCP forbids it.
	NullID bool
	// Requests counts the requests passed on, so that the front end can
	// wait for their answers before it ends.
	Requests *atomic.Int64
	// Log takes a warning for each bad line.
	Log *slog.Logger
}

// Run copies in to to until in ends or to is closed, and returns the error
// that ended in (io.EOF at its end), or nil when to was closed first.
func (f *Filter) Run(in io.Reader, to io.Writer) error {
	r := NewReader(in, f.Max)
	for n := 1; ; n++ {
		line, err := r.ReadLine()
		if len(bytes.TrimSpace(line)) > 0 || errors.Is(err, ErrTooLong) {
			if !f.pass(n, line, err, to) {
				return nil
			}
		}
		if err != nil && !errors.Is(err, ErrTooLong) {
			// A closed input is the front end ending the read at its
			// shutdown, not a failure.
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				f.Log.Error("read stdin", "err", err)
			}
			return err
		}
	}
}

// pass gives line n to to, or answers it; false means to is closed.
func (f *Filter) pass(n int, line []byte, readErr error, to io.Writer) bool {
	code, problem, request := f.Check(line, readErr)
	if code != 0 {
		f.Log.Warn("malformed message", "line", n, "problem", problem)
		if err := f.Reply(MessageID(line, f.NullID), code, problem); err != nil {
			f.Log.Error("answer a malformed message", "err", err)
		}
		return true
	}
	if request {
		f.Requests.Add(1)
	}
	if _, err := to.Write(append(line, '\n')); err != nil {
		if request {
			f.Requests.Add(-1)
		}
		return false
	}
	return true
}
