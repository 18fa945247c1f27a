package acp

import (
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
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

// wireError gives an error its code. The message is one sentence for the
// user, which ACP editors show as it is; the data's detail holds the
// whole chain, with the method, for logs and bug reports.
func wireError(method string, err error) *sdk.RequestError {
	var rerr *sdk.RequestError
	var bad *invalidParams
	switch {
	case errors.As(err, &rerr):
		return rerr
	case errors.As(err, &bad):
		return &sdk.RequestError{Code: codeInvalidParams, Message: err.Error()}
	}
	return &sdk.RequestError{Code: kindCode(conversation.KindOf(err)), Message: conversation.UserMessage(err),
		Data: map[string]string{"detail": fmt.Sprintf("%s: %v", method, err)}}
}

func kindCode(kind conversation.ErrorKind) int {
	switch kind {
	case conversation.KindUnknownSession:
		return codeResourceNotFound
	case conversation.KindSessionTooLarge, conversation.KindInvalidSession, conversation.KindInvalidRequest:
		return codeInvalidParams
	case conversation.KindSourceUnavailable:
		return codeSourceUnavailable
	case conversation.KindNoModel:
		return codeModelNotConfigured
	case conversation.KindBusy:
		return codeSessionBusy
	case conversation.KindModel:
		return codeModelError
	}
	return codeInternalError
}
