package editor

import (
	"encoding/json"
	"errors"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/aiq/aiq-rpc/conversation"
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
// (conversation.UserMessage); its data holds the whole chain, with the method, for
// logs and bug reports: {"detail": "session/load: load session ...: ..."},
// and for a model error the HTTP status and how long to wait.
func wireError(method string, err error) error {
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) && wire.Message == err.Error() {
		return wire
	}
	code := codeOf(err)
	e := jsonrpc2.NewError(code, conversation.UserMessage(err))
	e.Data, _ = json.Marshal(newErrorData(method, err))
	return e
}

// codeOf is the code of an error from the workspace.
func codeOf(err error) jsonrpc2.Code {
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) {
		return wire.Code
	}
	switch conversation.KindOf(err) {
	case conversation.KindUnknownSession:
		return CodeUnknownSession
	case conversation.KindSessionTooLarge:
		return CodeSessionTooLarge
	case conversation.KindInvalidSession:
		return CodeInvalidSession
	case conversation.KindSourceUnavailable:
		return CodeSourceUnavailable
	case conversation.KindNoModel:
		return CodeModelNotConfigured
	case conversation.KindBusy:
		return CodeSessionBusy
	case conversation.KindInvalidRequest:
		return jsonrpc2.InvalidParams
	case conversation.KindModel:
		return CodeModelError
	}
	return jsonrpc2.InternalError
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

func invalidRequest(message string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, message)
}

func invalidParams(method, problem string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %s", method, problem)
}
