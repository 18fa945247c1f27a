package conversation

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/sessionio"
)

// UserMessage is the sentence a user reads for an error of the Workspace:
// what happened and what to do, without the steps that led to it, which
// a front end keeps for its logs and bug reports.
func UserMessage(err error) string {
	var said interface {
		error
		HTTPStatus() int
	}
	var model *ModelError
	kind := KindOf(err)
	switch {
	case kind == KindInvalidSession || kind == KindSessionTooLarge:
		return sessionMessage(err)
	case errors.As(err, &said):
		// The endpoint's errors are written for the user already.
		return sentence(said.Error())
	case errors.As(err, &model):
		return sentence("The model could not answer: " + strings.TrimPrefix(model.Err.Error(), "ask the model: "))
	case kind == KindSourceUnavailable:
		return sourceMessage(after(err.Error(), ErrSourceUnavailable))
	case errors.Is(err, ErrInvalidRequest):
		// What follows the sentinel is written for the user: "x is a folder; give ...".
		return sentence(after(err.Error(), ErrInvalidRequest))
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

// FileProblem says what is wrong with a session file that did not load,
// for a list that names the file already: "the file is empty", not the
// steps that led to it.
func FileProblem(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	for _, sentinel := range []error{sessionio.ErrTooLarge, sessionio.ErrInvalid} {
		if errors.Is(err, sentinel) {
			return after(err.Error(), sentinel)
		}
	}
	return err.Error()
}
