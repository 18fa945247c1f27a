package jsonline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
)

// TestReadLine: a line over the limit is dropped whole and reported, and
// the lines around it are read as they are, without their line endings.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // several of the reader's buffers
	r := NewReader(strings.NewReader("a\r\n"+long+"\nb\n"+long), 100<<10)
	for i, want := range []struct {
		line string
		err  error
	}{{"a", nil}, {"", ErrTooLong}, {"b", nil}, {"", ErrTooLong}} {
		line, err := r.ReadLine()
		if string(line) != want.line || !errors.Is(err, want.err) {
			t.Fatalf("line %d: %.20q, %v; want %q, %v", i, line, err, want.line, want.err)
		}
	}
	if _, err := r.ReadLine(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v, want EOF", err)
	}
}

// TestNotJSON: too deep a message is told apart from text that is not
// JSON, and brackets inside strings do not count.
func TestNotJSON(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, c := range []struct{ line, want string }{
		{deep, "nested too deeply (limit 10000)"},
		{`{"a":"` + strings.Repeat("[", MaxDepth+1) + `"`, "the line is not JSON; hint"},
		{"hello", "the line is not JSON; hint"},
	} {
		if got := NotJSON([]byte(c.line), "hint"); !strings.HasSuffix(got, c.want) {
			t.Errorf("NotJSON(%.30q) = %q, want it to end %q", c.line, got, c.want)
		}
	}
}

// TestMessageID: the id of a bad message is given back only when it is
// one JSON-RPC allows.
func TestMessageID(t *testing.T) {
	for _, c := range []struct {
		line   string
		nullOK bool
		want   string
	}{
		{`{"id":7,"method":3}`, false, "7"},
		{`{"id":"a"}`, false, `"a"`},
		{`{"id":null}`, false, ""},
		{`{"id":null}`, true, "null"},
		{`{"id":{"x":1}}`, true, ""},
		{`{"id":[1]}`, true, ""},
		{`[1]`, true, ""},
		{`not json`, true, ""},
	} {
		if got := string(MessageID([]byte(c.line), c.nullOK)); got != c.want {
			t.Errorf("MessageID(%s, %v) = %q, want %q", c.line, c.nullOK, got, c.want)
		}
	}
}

// TestFilter: good lines are passed on and their requests counted; a bad
// line is answered with its id and never passed on; the end of input is
// returned.
func TestFilter(t *testing.T) {
	type answer struct {
		id   string
		code int
	}
	var answers []answer
	var requests atomic.Int64
	f := Filter{
		Max: 1 << 10,
		Check: func(line []byte, readErr error) (int, string, bool) {
			if readErr != nil {
				return CodeInvalidRequest, TooLong(1 << 10), false
			}
			if strings.Contains(string(line), "bad") {
				return CodeInvalidRequest, "bad", false
			}
			return 0, "", strings.Contains(string(line), "method")
		},
		Reply: func(id json.RawMessage, code int, _ string) error {
			answers = append(answers, answer{string(id), code})
			return nil
		},
		Requests: &requests,
		Log:      slog.New(slog.DiscardHandler),
	}
	in := `{"id":1,"method":"a"}` + "\n\n" + `{"id":2,"bad":1}` + "\n" + strings.Repeat("x", 2<<10) + "\n" + `{"method":"n"}` + "\n"
	var to strings.Builder
	if err := f.Run(strings.NewReader(in), &to); !errors.Is(err, io.EOF) {
		t.Fatalf("Run: %v, want EOF", err)
	}
	if want := `{"id":1,"method":"a"}` + "\n" + `{"method":"n"}` + "\n"; to.String() != want {
		t.Errorf("passed on %q, want %q", to.String(), want)
	}
	if want := []answer{{"2", CodeInvalidRequest}, {"", CodeInvalidRequest}}; fmt.Sprint(answers) != fmt.Sprint(want) {
		t.Errorf("answered %v, want %v", answers, want)
	}
	if requests.Load() != 2 {
		t.Errorf("%d requests counted, want 2", requests.Load())
	}
}
