package rpc

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

// wireError gives an error from the workspace its code. The message is
// the error's own: the workspace writes them for the user.
func wireError(method string, err error) error {
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) && wire.Message == err.Error() {
		return wire
	}
	code := jsonrpc2.InternalError
	var data any
	if errors.As(err, &wire) {
		code = wire.Code
	} else {
		switch conversation.KindOf(err) {
		case conversation.KindUnknownSession:
			code = CodeUnknownSession
		case conversation.KindSessionTooLarge:
			code = CodeSessionTooLarge
		case conversation.KindInvalidSession:
			code = CodeInvalidSession
		case conversation.KindSourceUnavailable:
			code = CodeSourceUnavailable
		case conversation.KindNoModel:
			code = CodeModelNotConfigured
		case conversation.KindBusy:
			code = CodeSessionBusy
		case conversation.KindInvalidRequest:
			code = jsonrpc2.InvalidParams
		case conversation.KindModel:
			code, data = CodeModelError, modelErrorData(err)
		}
	}
	e := jsonrpc2.NewError(code, method+": "+err.Error())
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// modelErrorData is the data of a model error: the HTTP status and how
// long the endpoint asked us to wait, when it said.
func modelErrorData(err error) any {
	var status interface {
		HTTPStatus() int
		RetryAfterDelay() time.Duration
	}
	if !errors.As(err, &status) {
		return nil
	}
	return struct {
		Status     int     `json:"status"`
		RetryAfter float64 `json:"retryAfter,omitempty"`
	}{status.HTTPStatus(), status.RetryAfterDelay().Seconds()}
}

func invalidRequest(message string) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, message)
}

func invalidParams(method, problem string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %s", method, problem)
}
