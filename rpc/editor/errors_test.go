package editor_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// TestUserMessage: each error of the workspace reads as one sentence,
// without the steps that led to it: the message of rpc's errors.
func TestUserMessage(t *testing.T) {
	missing := &fs.PathError{Op: "stat", Path: "/home/ana/x.json", Err: fs.ErrNotExist}
	denied := &fs.PathError{Op: "open", Path: "/home/ana/x.json", Err: fs.ErrPermission}
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: load session /home/ana/x.json: %w", sessionio.ErrInvalid, missing),
			"There is no session file at /home/ana/x.json; check the path."},
		{fmt.Errorf("%w: load session /home/ana/x.json: %w", sessionio.ErrInvalid, denied),
			"The session file /home/ana/x.json cannot be read: permission denied."},
		{fmt.Errorf("load session /a: b.json: %w: metadata: want an object, found a number", sessionio.ErrInvalid),
			"The file /a: b.json cannot be opened as a session: metadata: want an object, found a number."},
		{fmt.Errorf("load session /a.json: %w: 11.0 MiB is over the 10.0 MiB limit", sessionio.ErrTooLarge),
			"The session file /a.json is too large to open: 11.0 MiB is over the 10.0 MiB limit."},
		{fmt.Errorf("%w: open shop: connection refused", conversation.ErrSourceUnavailable),
			`The data source "shop" could not be opened: connection refused; check it in sources.yaml, or choose another.`},
		{fmt.Errorf("run turn: %w", &conversation.ModelError{Request: 2, Err: httpError{429, 0}}),
			"The endpoint answered 429."},
		{fmt.Errorf("run turn: %w", &conversation.ModelError{Request: 1, Err: errors.New("ask the model: the reply had no choices")}),
			"The model could not answer: the reply had no choices."},
		{fmt.Errorf("run turn: %w", errors.New("the question is empty")), "The question is empty."},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, conversation.UserMessage(c.err), "%v", c.err)
	}
}
