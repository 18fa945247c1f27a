package conversation

import (
	"errors"

	"github.com/aiq/aiq-rpc/sessionio"
)

// ErrorKind sorts the errors of a Workspace for its front ends, which give
// each kind their own code.
type ErrorKind int

// The kinds of error.
const (
	KindInternal          ErrorKind = iota // none of the others: a bug or the system
	KindUnknownSession                     // ErrUnknownSession
	KindSessionTooLarge                    // sessionio.ErrTooLarge
	KindInvalidSession                     // sessionio.ErrInvalid
	KindSourceUnavailable                  // ErrSourceUnavailable
	KindNoModel                            // ErrNoModel
	KindBusy                               // ErrBusy
	KindInvalidRequest                     // ErrInvalidRequest
	KindModel                              // a *ModelError
)

// KindOf says which kind of error err is.
func KindOf(err error) ErrorKind {
	var model *ModelError
	switch {
	case errors.Is(err, ErrUnknownSession):
		return KindUnknownSession
	case errors.Is(err, sessionio.ErrTooLarge):
		return KindSessionTooLarge
	case errors.Is(err, sessionio.ErrInvalid):
		return KindInvalidSession
	case errors.Is(err, ErrSourceUnavailable):
		return KindSourceUnavailable
	case errors.Is(err, ErrNoModel):
		return KindNoModel
	case errors.Is(err, ErrBusy):
		return KindBusy
	case errors.Is(err, ErrInvalidRequest):
		return KindInvalidRequest
	case errors.As(err, &model):
		return KindModel
	}
	return KindInternal
}
