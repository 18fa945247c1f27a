package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// The error codes of aiq-rpc, past JSON-RPC's and LSP's own.
const (
	CodeUnknownSession     jsonrpc2.Code = -32001
	CodeInvalidSession     jsonrpc2.Code = -32010
	CodeSessionTooLarge    jsonrpc2.Code = -32011
	CodeSourceUnavailable  jsonrpc2.Code = -32012
	CodeModelError         jsonrpc2.Code = -32020
	CodeModelNotConfigured jsonrpc2.Code = -32021
	CodeSessionBusy        jsonrpc2.Code = -32030
)

// wireError gives an error from the workspace its code. Its message is
// one sentence for the user, which says what happened and what to do
// (userMessage); its data holds the whole chain, with the method, for
// logs and bug reports: {"detail": "session/load: load session ...: ..."},
// and for a model error the HTTP status and how long to wait.
func wireError(method string, err error) error {
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) && wire.Message == err.Error() {
		return wire
	}
	code := codeOf(err)
	e := jsonrpc2.NewError(code, userMessage(code, err))
	e.Data, _ = json.Marshal(newErrorData(method, err))
	return e
}

// codeOf is the code of an error from the workspace.
func codeOf(err error) jsonrpc2.Code {
	var wire *jsonrpc2.Error
	switch {
	case errors.As(err, &wire):
		return wire.Code
	case errors.Is(err, conversation.ErrUnknownSession):
		return CodeUnknownSession
	case errors.Is(err, sessionio.ErrTooLarge):
		return CodeSessionTooLarge
	case errors.Is(err, sessionio.ErrInvalid):
		return CodeInvalidSession
	case errors.Is(err, conversation.ErrSourceUnavailable):
		return CodeSourceUnavailable
	case errors.Is(err, conversation.ErrNoModel):
		return CodeModelNotConfigured
	case errors.Is(err, conversation.ErrBusy):
		return CodeSessionBusy
	case errors.Is(err, conversation.ErrInvalidRequest):
		return jsonrpc2.InvalidParams
	case isModelError(err):
		return CodeModelError
	}
	return jsonrpc2.InternalError
}

// UserMessage is the sentence a user reads for an error of the workspace,
// as in the message of the error a request would get: for the warnings
// that a front end gives before any request.
func UserMessage(err error) string {
	return userMessage(codeOf(err), err)
}

// errorData is the data of an error: its detail, and for a model error
// the HTTP status and how long the endpoint asked us to wait, when it
// said.
type errorData struct {
	Detail     string  `json:"detail"`
	Status     int     `json:"status,omitempty"`
	RetryAfter float64 `json:"retryAfter,omitempty"`
}

func newErrorData(method string, err error) errorData {
	d := errorData{Detail: method + ": " + err.Error()}
	var status interface {
		HTTPStatus() int
		RetryAfterDelay() time.Duration
	}
	if errors.As(err, &status) {
		d.Status, d.RetryAfter = status.HTTPStatus(), status.RetryAfterDelay().Seconds()
	}
	return d
}

// userMessage is the sentence the user reads for err, without the steps
// that led to it: those are in the error's data.
func userMessage(code jsonrpc2.Code, err error) string {
	var said interface {
		error
		HTTPStatus() int
	}
	var model *conversation.ModelError
	switch {
	case code == CodeInvalidSession || code == CodeSessionTooLarge:
		return sessionMessage(err)
	case errors.As(err, &said):
		// The endpoint's errors are written for the user already.
		return sentence(said.Error())
	case errors.As(err, &model):
		return sentence("The model could not answer: " + strings.TrimPrefix(model.Err.Error(), "ask the model: "))
	case code == CodeSourceUnavailable:
		return sourceMessage(after(err.Error(), conversation.ErrSourceUnavailable))
	}
	return sentence(strings.TrimPrefix(err.Error(), "run turn: "))
}

// sessionMessage says why a session file did not open: the file is
// missing or unreadable, not a session, or too large.
func sessionMessage(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("There is no session file at %s; check the path.", pathErr.Path)
		}
		return sentence(fmt.Sprintf("The session file %s cannot be read: %v", pathErr.Path, pathErr.Err))
	}
	msg := err.Error()
	for _, sentinel := range []error{sessionio.ErrTooLarge, sessionio.ErrInvalid} {
		if !errors.Is(err, sentinel) {
			continue
		}
		path, reason := "", after(msg, sentinel)
		// sessionio says "load session PATH: <sentinel>: reason".
		if i, j := strings.Index(msg, "load session "), strings.LastIndex(msg, ": "+sentinel.Error()+": "); i >= 0 && j > i {
			path = msg[i+len("load session ") : j]
		}
		if sentinel == sessionio.ErrTooLarge {
			return sentence(fmt.Sprintf("The session file %s is too large to open: %s", path, reason))
		}
		return sentence(fmt.Sprintf("The file %s cannot be opened as a session: %s", path, reason))
	}
	return sentence(msg)
}

// sourceMessage says why a data source is not available: not configured,
// or "open NAME: why" it could not be opened.
func sourceMessage(reason string) string {
	if rest, ok := strings.CutPrefix(reason, "open "); ok {
		if name, why, ok := strings.Cut(rest, ": "); ok {
			return sentence(fmt.Sprintf("The data source %q could not be opened: %s; check it in sources.yaml, or choose another", name, why))
		}
	}
	return sentence("The data source is not available: " + reason)
}

// after returns what msg says after sentinel's text, or msg.
func after(msg string, sentinel error) string {
	if i := strings.LastIndex(msg, sentinel.Error()+": "); i >= 0 {
		return msg[i+len(sentinel.Error())+2:]
	}
	return msg
}

// sentence starts s with a capital letter and ends it with a period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

func isModelError(err error) bool {
	var m *conversation.ModelError
	return errors.As(err, &m)
}

func invalidRequest(message string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, message)
}

func invalidParams(method, problem string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %s", method, problem)
}
