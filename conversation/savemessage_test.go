package conversation

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/aiq/aiq-rpc/sessionio"
)

func TestSaveFailedMessage(t *testing.T) {
	disk := &fs.PathError{Op: "write", Path: "/home/ana/.aiq/sessions/.session-1.tmp", Err: syscall.ENOSPC}
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("save session /home/ana/.aiq/sessions/s.json: %w", disk),
			"The AIQ conversation could not be saved (no space left on device); the next answer tries again."},
		{fmt.Errorf("save session s1: %w", &sessionio.SizeError{Size: 11 << 20}),
			"The AIQ conversation could not be saved (session file too large: 11.0 MiB is over the 10.0 MiB limit); the next answer tries again."},
		{fmt.Errorf("save session s1: %w", errors.New("the disk went away")),
			"The AIQ conversation could not be saved (the disk went away); the next answer tries again."},
	}
	for _, c := range cases {
		if got := SaveFailedMessage(c.err); got != c.want {
			t.Errorf("SaveFailedMessage(%q)\n got %q\nwant %q", c.err, got, c.want)
		}
	}
}
