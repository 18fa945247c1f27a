package acp

import (
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// The error codes past JSON-RPC's own: ACP's resource_not_found, and
// aiq-rpc's codes of docs/protocol.md where ACP has none.
const (
	codeResourceNotFound   = -32002
	codeSourceUnavailable  = -32012
	codeModelError         = -32020
	codeModelNotConfigured = -32021
	codeSessionBusy        = -32030
)

// wireError gives an error its code. The message is the error's own,
// written for the user: ACP editors show it as it is.
func wireError(method string, err error) *sdk.RequestError {
	var rerr *sdk.RequestError
	if errors.As(err, &rerr) {
		return rerr
	}
	code := codeInternalError
	var bad *invalidParams
	var model *conversation.ModelError
	switch {
	case errors.As(err, &bad):
		return &sdk.RequestError{Code: codeInvalidParams, Message: err.Error()}
	case errors.Is(err, conversation.ErrUnknownSession):
		code = codeResourceNotFound
	case errors.Is(err, sessionio.ErrTooLarge), errors.Is(err, sessionio.ErrInvalid), errors.Is(err, conversation.ErrInvalidRequest):
		code = codeInvalidParams
	case errors.Is(err, conversation.ErrSourceUnavailable):
		code = codeSourceUnavailable
	case errors.Is(err, conversation.ErrNoModel):
		code = codeModelNotConfigured
	case errors.Is(err, conversation.ErrBusy):
		code = codeSessionBusy
	case errors.As(err, &model):
		code = codeModelError
	}
	return &sdk.RequestError{Code: code, Message: fmt.Sprintf("%s: %v", method, err)}
}
