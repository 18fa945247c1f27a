package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goInternals is what a message to a client must not quote: Go's types,
// exported or not (mcp.Implementation, clientCapabilitiesV2), and its
// decoder's words.
var goInternals = regexp.MustCompile(`Go value|Go struct|\*mcp\.|mcp\.[A-Za-z]|json: |map\[|interface \{\}|unmarshal|` +
	`\b[a-z]\w*V\d+\b|\b[a-z]+[A-Z]\w*(Params|Capabilities|Result|Request)\b|\b(Implementation|[A-Z]\w*Capabilities|[A-Z]\w*Params(Raw)?)\b`)

// wireCase is one request and the answer it must draw: its id exactly as
// sent, and an error code and words (code 0: a result, whose text holds
// words).
type wireCase struct {
	line  string
	id    string
	code  int
	words string
}

// answerOf is a response as the test reads it.
type answerOf struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// startPiped starts the binary with args under ctx, its input and output
// on pipes and its stderr in a buffer.
func startPiped(ctx context.Context, t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *syncBuffer) {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	return cmd, stdin, stdout, stderr
}

// runWire starts the binary with args, sends lines, reads the answers
// until each id of cases is answered, then ends the input and returns the
// answers by id as sent and the binary's stderr.
func runWire(t *testing.T, args []string, lines []string, cases []wireCase) (map[string][]answerOf, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd, stdin, stdout, stderr := startPiped(ctx, t, args...)
	_, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n")
	require.NoError(t, err)
	want := map[string]bool{}
	for _, c := range cases {
		want[c.id] = true
	}
	got := map[string][]answerOf{}
	scan := bufio.NewScanner(stdout)
	scan.Buffer(nil, 1<<20)
	for len(want) > 0 && scan.Scan() {
		var a answerOf
		require.NoError(t, json.Unmarshal(scan.Bytes(), &a), "stdout holds a line that is not a message: %.200q", scan.Text())
		if a.ID == nil {
			continue // a request or notification of the server's
		}
		got[string(a.ID)] = append(got[string(a.ID)], a)
		delete(want, string(a.ID))
	}
	require.Empty(t, want, "ids never answered; stderr:\n%s", stderr.String())
	require.NoError(t, stdin.Close())
	io.Copy(io.Discard, stdout)
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	return got, stderr.String()
}

// checkWire checks each case's answer: one, with the id as sent, the code
// and the words, and no Go internals.
func checkWire(t *testing.T, got map[string][]answerOf, cases []wireCase) {
	t.Helper()
	for _, c := range cases {
		answers := got[c.id]
		if !assert.Len(t, answers, 1, "answers to id %s (%s)", c.id, c.line) {
			continue
		}
		a := answers[0]
		var text string
		switch {
		case a.Error != nil:
			text = a.Error.Message
			assert.NotZero(t, a.Error.Code, "id %s: an error code from JSON-RPC's specification", c.id)
			assert.Equal(t, c.code, a.Error.Code, "id %s: %s", c.id, text)
		default:
			text = string(a.Result)
			assert.Zero(t, c.code, "id %s: want an error, got %s", c.id, text)
		}
		assert.Contains(t, text, c.words, "id %s", c.id)
		assert.NotRegexp(t, goInternals, text, "id %s quotes Go's internals", c.id)
	}
}

// TestMCPWireWords: over the built binary, every request is answered with
// its id exactly as sent (or refused as invalid, with the id as sent),
// with a code from JSON-RPC's specification and a message in words; the
// start is one info line on stderr, and neither the end of input nor
// SIGTERM logs an error.
func TestMCPWireWords(t *testing.T) {
	h := newHome(t)
	h.writeFile(t, "local.sqlite", "") // an empty database
	initialize := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	}
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	early := wireCase{`{"jsonrpc":"2.0","id":"early","method":"tools/list"}`, `"early"`, -32600, "before initialize"}
	cases := []wireCase{
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `1.5`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`, `18446744073709551616`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, `1e2`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `-0`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, `9007199254740991`, 0, "{}"},
		{`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`, `-9007199254740991`, 0, "{}"},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, `9223372036854775807`, -32600, "cannot be answered as sent"},
		{`{"jsonrpc":"2.0","id":"a b é","method":"ping"}`, `"a b é"`, 0, "{}"},
		{`{"jsonrpc":"2.0","id":"","method":"ping"}`, `""`, 0, "{}"},
		{initialize(`"again"`), `"again"`, -32600, "already initialized"},
		{`{"jsonrpc":"2.0","id":20,"method":"initialize","params":5}`, `20`, -32602, "must be a JSON object"},
		{`{"jsonrpc":"2.0","id":21,"method":"tools/list","params":[1]}`, `21`, -32602, `the params of "tools/list" must be a JSON object`},
		{call("22", `{"name":1}`), `22`, -32602, `"name" must be a string`},
		{call("23", `"x"`), `23`, -32602, `the params of "tools/call" must be a JSON object`},
		{call("24", `{"name":"query","arguments":{"sql":"SELECT 1"},"_meta":5}`), `24`, -32602, `"_meta" must be an object`},
		{`{"jsonrpc":"2.0","id":25,"method":"resources/read","params":{"uri":5}}`, `25`, -32602, `"uri" must be a string`},
		{`{"jsonrpc":"2.0","id":26,"method":"ping","params":5}`, `26`, -32602, `the params of "ping" must be a JSON object`},
		{`{"jsonrpc":"2.0","id":27,"method":"resources/templates/list","params":{"cursor":5}}`, `27`, -32602, `"cursor" must be a string`},
		{`{"jsonrpc":"2.0","id":28,"method":"no/such/method"}`, `28`, -32601, "no/such/method"},
		{call("29", `{"name":"query","arguments":"x"}`), `29`, 0, "must be a JSON object, not a string"},
		{call("30", `{"name":"execute_sql","arguments":{"sql":"`+strings.Repeat("x", 1<<20)+`"}}`), `30`, 0, "more than the 1048576-byte (1.0 MiB) limit"},
		{call("32", `{"name":"execute_sql","arguments":{"sql":"`+strings.Repeat("x", 2<<20)+`"}}`), `32`, 0, "2.0 MiB, more than the 1.0 MiB limit"},
		{call("31", `{"name":"query","arguments":{"sql":"SELECT 1 AS n"}}`), `31`, 0, "| n |"},
	}
	lines := []string{early.line, initialize("1"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	got, stderr := runWire(t, []string{"mcp", "--home", h.Dir, "--source", "local"}, lines, append(cases, early))
	checkWire(t, got, append(cases, early))
	assert.Len(t, got["1"], 1, "initialize's answer")

	starts := regexp.MustCompile(`(?m)^.*level=INFO msg="aiq-rpc started".*$`).FindAllString(stderr, -1)
	if assert.Len(t, starts, 1, "one line at start; stderr:\n%s", stderr) {
		assert.Contains(t, starts[0], "front=mcp")
		assert.Contains(t, starts[0], "version=")
		assert.Contains(t, starts[0], "home="+h.Dir)
	}
	assert.NotContains(t, stderr, "level=ERROR", "the end of input is a normal shutdown")
	assert.NotRegexp(t, goInternals, stderr)
	assert.NotContains(t, stderr, testPassword)

	// SIGTERM, once the server answers, is a normal shutdown too.
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "mcp", "--home", h.Dir, "--source", "local")
	cmd.Env = childEnv()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errs := &syncBuffer{}
	cmd.Stderr = errs
	cmd.WaitDelay = 5 * time.Second
	require.NoError(t, cmd.Start())
	_, err = io.WriteString(stdin, initialize("1")+"\n")
	require.NoError(t, err)
	scan := bufio.NewScanner(stdout)
	require.True(t, scan.Scan(), "initialize's answer")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "stderr:\n%s", errs.String())
	assert.NotContains(t, errs.String(), "level=ERROR", "SIGTERM is a normal shutdown")
}

// TestACPAnswersEveryID: ACP answers every message that has an id, null
// included, and one without a method, with the id as sent; one info line
// on stderr says it started.
func TestACPAnswersEveryID(t *testing.T) {
	h := newHome(t)
	cases := []wireCase{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, `1`, 0, "protocolVersion"},
		{`{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}`, `null`, -32600, "not null"},
		{`{"jsonrpc":"2.0","id":5}`, `5`, -32600, "with a result or an error"},
		{`{"jsonrpc":"2.0","id":"six","params":{}}`, `"six"`, -32600, "with a result or an error"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"no/such"}`, `1.5`, -32601, "no/such"},
		{`{"jsonrpc":"2.0","id":18446744073709551616,"method":"no/such"}`, `18446744073709551616`, -32601, "no/such"},
	}
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	got, stderr := runWire(t, []string{"acp", "--home", h.Dir}, lines, cases)
	checkWire(t, got, cases)
	assert.Regexp(t, `level=INFO msg="aiq-rpc started" version=\S+ front=acp home=`, stderr)
}
