package jsonline

import (
	"errors"
	"io"
	"strings"
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
