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

// TestExactID: a number id the SDK would answer as another number is
// refused; the ids it answers as sent pass.
func TestExactID(t *testing.T) {
	for _, id := range []string{`1`, `0`, `-7`, `9007199254740991`, `-9007199254740991`, `"1.5"`, `"x"`} {
		if problem := exactID([]byte(id)); problem != "" {
			t.Errorf("exactID(%s) = %q, want it answered as sent", id, problem)
		}
	}
	for _, id := range []string{`1.5`, `1e2`, `-0`, `1.0`, `9007199254740992`, `18446744073709551616`, `-9223372036854775809`} {
		problem := exactID([]byte(id))
		if !strings.Contains(problem, "the id "+id+" cannot be answered as sent") {
			t.Errorf("exactID(%s) = %q, want it refused", id, problem)
		}
		code, _, _ := check([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), nil)
		if code != codeInvalidRequest {
			t.Errorf("check of a ping with id %s: code %d, want %d", id, code, codeInvalidRequest)
		}
	}
}

// TestRewordError: the SDK's errors get a code from the specification and
// words without Go's types.
func TestRewordError(t *testing.T) {
	for _, c := range []struct {
		code    int
		message string
		want    int
		words   string
	}{
		{0, `method "tools/list" is invalid during session initialization`, codeInvalidRequest, `"tools/list" came before initialize`},
		{0, `duplicate "initialize" received`, codeInvalidRequest, "already initialized"},
		{-32602, `handling 'tools/call': invalid params: unmarshaling "{\"name\":1}" into a *mcp.CallToolParamsRaw: json: cannot unmarshal "1}" into Go struct field mcp.CallToolParamsRaw.name of type string`,
			codeInvalidParams, `in the params of "tools/call", "name" must be a string`},
		{-32602, `handling 'tools/list': invalid params: unmarshaling "[1]" into a *mcp.ListToolsParams: json: cannot unmarshal "[1]" into Go value of type mcp.ListToolsParams`,
			codeInvalidParams, `the params of "tools/list" must be a JSON object`},
		{0, `unmarshaling "5" into a *mcp.initializeParamsV2: json: cannot unmarshal number into Go value of type mcp.initializeParamsV2`,
			codeInvalidParams, "the params must be a JSON object"},
		// Without the request's params: the parts that are no member name
		// (an unexported type of the SDK's) go.
		{-32602, `handling 'initialize': invalid params: unmarshaling "{}" into a *mcp.initializeParamsV2: json: cannot unmarshal number into Go struct field clientCapabilitiesV2.capabilities.elicitation of type mcp.ElicitationCapabilities`,
			codeInvalidParams, `in the params of "initialize", "capabilities.elicitation" must be an object`},
		{-32602, `handling 'initialize': invalid params: json: cannot unmarshal string into Go struct field clientCapabilitiesV2mcp.RootCapabilities.capabilities.roots.listChanged of type bool`,
			codeInvalidParams, `"capabilities.roots.listChanged" must be true or false`},
		{0, "something else went wrong", codeInternalError, "something else went wrong"},
		{-32601, `method not found: "x"`, -32601, `method not found: "x"`},
	} {
		code, message := rewordError(c.code, c.message, nil)
		if code != c.want || !strings.Contains(message, c.words) || strings.Contains(message, "Go ") || strings.Contains(message, "mcp.") || strings.Contains(message, "V2") {
			t.Errorf("rewordError(%d, %.60q) = %d %q, want %d and %q", c.code, c.message, code, message, c.want, c.words)
		}
	}
}

// TestRenderNotRun: a statement refused before it ran does not read as
// one that failed running.
func TestRenderNotRun(t *testing.T) {
	got := render("execute_sql", map[string]any{"status": "error", "error": "the statement was not run: it could not be read"})
	if got != "Not run: it could not be read" {
		t.Errorf("render = %q", got)
	}
	got = render("execute_sql", map[string]any{"status": "error", "error": "relation \"x\" does not exist"})
	if got != `The statement failed: relation "x" does not exist` {
		t.Errorf("render = %q", got)
	}
}
