package conversation

import (
	"errors"
	"syscall"

	"github.com/aiq/aiq-rpc/sessionio"
)

// SaveFailedMessage says in one sentence that a turn was not saved, and
// why in the words of its cause: the system's ("no space left on device")
// or the size limit's, not the chain of what was being done, which is
// for the log. err is an Answer's SaveError.
func SaveFailedMessage(err error) string {
	var size *sessionio.SizeError
	var errno syscall.Errno
	var why string
	switch {
	case errors.As(err, &size):
		why = size.Error()
	case errors.As(err, &errno):
		why = errno.Error()
	default:
		for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
			err = next
		}
		why = err.Error()
	}
	return sentence("The AIQ conversation could not be saved (" + why + "); the next answer tries again")
}
