package mcp

import (
	"strings"
	"testing"
)

// TestCheckSaysWhatIsWrong: each kind of bad line gets its code and a
// sentence in words, never a decoder's Go types.
func TestCheckSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		line string
		code int
		want string
	}{
		{"hello", codeParseError, "the line is not JSON"},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), codeParseError, "nested too deeply (limit 10000)"},
		{"[1,2]", codeInvalidRequest, "one JSON object, not an array"},
		{`{"jsonrpc":2,"id":1,"method":"ping"}`, codeInvalidRequest, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":1,"method":["ping"]}`, codeInvalidRequest, "method must be a string, not an array"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest, "the id must be a string or a number, not an object"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, codeInvalidRequest, "not null"},
		{`{"jsonrpc":"2.0"}`, codeInvalidRequest, "neither a method nor an id"},
		{`{"jsonrpc":"2.0","id":1}`, codeInvalidRequest, "with a result or an error"},
	} {
		code, problem, _ := check([]byte(c.line), nil)
		if code != c.code || !strings.Contains(problem, c.want) || strings.Contains(problem, "Go ") {
			t.Errorf("check(%.40q) = %d %q, want %d and %q", c.line, code, problem, c.code, c.want)
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if code, problem, _ := check([]byte(line), nil); code != 0 {
			t.Errorf("check(%s) = %d %q, want it accepted", line, code, problem)
		}
	}
}
