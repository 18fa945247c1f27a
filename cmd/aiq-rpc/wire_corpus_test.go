package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusFile is the malformed-input corpus of aiq-rpc mcp; its README
// says how a case is written.
const corpusFile = "../../rpc/mcp/testdata/malformed/cases.txt"

// corpusKinds is how many kinds the corpus must hold at least: issue 29's
// 66.
const corpusKinds = 66

// corpusCase is one kind of input and what must come back.
type corpusCase struct {
	kind  string
	fresh bool     // a server of its own, not initialized
	sends [][]byte // the lines sent, in order
	id    string   // the answer's id as sent; "null", or "none" for no answer
	code  int
	says  string
	also  []string // the ids of other requests it sends, answered once
}

var corpusPlaceholder = regexp.MustCompile(`\{\{(repeat|bytes):([^}]*)\}\}`)

// expandSend is a send: line with its placeholders put in.
func expandSend(t *testing.T, s string) []byte {
	var out []byte
	last := 0
	for _, m := range corpusPlaceholder.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, s[last:m[0]]...)
		arg := s[m[4]:m[5]]
		switch s[m[2]:m[3]] {
		case "repeat":
			i := strings.LastIndex(arg, ":")
			n, err := strconv.Atoi(arg[i+1:])
			require.NoError(t, err, "repeat in %q", s)
			out = append(out, bytes.Repeat([]byte(arg[:i]), n)...)
		case "bytes":
			b, err := hex.DecodeString(strings.ReplaceAll(arg, " ", ""))
			require.NoError(t, err, "bytes in %q", s)
			out = append(out, b...)
		}
		last = m[1]
	}
	return append(out, s[last:]...)
}

func parseCorpus(t *testing.T) []corpusCase {
	data, err := os.ReadFile(corpusFile)
	require.NoError(t, err)
	var cases []corpusCase
	var c *corpusCase
	for n, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "== "):
			cases = append(cases, corpusCase{kind: line[3:]})
			c = &cases[len(cases)-1]
			continue
		}
		require.NotNil(t, c, "line %d: a case starts with ==", n+1)
		key, value, ok := strings.Cut(line, ":")
		require.True(t, ok, "line %d: %q", n+1, line)
		value = strings.TrimPrefix(value, " ")
		switch key {
		case "session":
			c.fresh = value == "fresh"
		case "send":
			c.sends = append(c.sends, expandSend(t, value))
		case "id":
			c.id = value
		case "code":
			c.code, err = strconv.Atoi(value)
			require.NoError(t, err, "line %d", n+1)
		case "says":
			c.says = value
		case "also":
			c.also = append(c.also, value)
		default:
			t.Fatalf("line %d: unknown key %q", n+1, key)
		}
	}
	return cases
}

// specCode reports whether code is one of JSON-RPC's: the five of the
// specification, or the range it leaves to servers.
func specCode(code int) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32603:
		return true
	}
	return code >= -32099 && code <= -32000
}

// quotedPath is the path of a member of the params that an invalid
// params message quotes ("in the params of "initialize", "clientInfo.name"
// must be a string").
var quotedPath = regexp.MustCompile(`, "([\w.]+)" must be`)

// TestMCPWireCorpus replays the malformed-input corpus against the built
// binary: each kind is answered once, with its id exactly as sent (or
// null where there is none to send back), a JSON-RPC code of the
// specification and never 0, words with no Go internals, and a member
// path that is the request's; nothing else is answered, stdout holds
// messages only, and the server goes on and ends cleanly at the end of
// its input.
func TestMCPWireCorpus(t *testing.T) {
	cases := parseCorpus(t)
	require.GreaterOrEqual(t, len(cases), corpusKinds, "the kinds of malformed input")
	kinds := map[string]bool{}
	var shared []corpusCase
	for _, c := range cases {
		require.False(t, kinds[c.kind], "the kind %q twice", c.kind)
		kinds[c.kind] = true
		require.NotEmpty(t, c.sends, c.kind)
		require.NotEmpty(t, c.id, c.kind)
		if c.fresh {
			t.Run(c.kind, func(t *testing.T) { replayCorpus(t, false, []corpusCase{c}) })
		} else {
			shared = append(shared, c)
		}
	}
	t.Run("one session", func(t *testing.T) { replayCorpus(t, true, shared) })
}

// replayCorpus sends cases to one server, initialized first or not, and
// checks the answers.
func replayCorpus(t *testing.T, initialized bool, cases []corpusCase) {
	h := newHome(t)
	h.writeFile(t, "local.sqlite", "")
	const end = `"corpus-end"`
	byID := map[string]corpusCase{}
	var nulls []corpusCase
	var in bytes.Buffer
	if initialized {
		in.WriteString(`{"jsonrpc":"2.0","id":"corpus-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"corpus","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	}
	for _, c := range cases {
		for _, s := range c.sends {
			in.Write(s)
			in.WriteByte('\n')
		}
		switch c.id {
		case "none":
		case "null":
			nulls = append(nulls, c)
		default:
			_, dup := byID[c.id]
			require.False(t, dup, "the id %s in two cases of one session", c.id)
			byID[c.id] = c
		}
	}
	in.WriteString(`{"jsonrpc":"2.0","id":` + end + `,"method":"ping"}` + "\n")

	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd, stdin, stdout, stderr := startPiped(ctx, t, "mcp", "--home", h.Dir, "--source", "local")
	go func() { stdin.Write(in.Bytes()) }() // a pipe holds less than the corpus

	got := map[string][]answerOf{}
	var nullAnswers []answerOf
	waiting := len(byID) + 1
	scan := bufio.NewScanner(stdout)
	scan.Buffer(nil, 64<<20)
	read := func() bool {
		if !scan.Scan() {
			return false
		}
		var a answerOf
		require.NoError(t, json.Unmarshal(scan.Bytes(), &a), "stdout holds a line that is not a message: %.200q", scan.Text())
		id := string(a.ID)
		switch {
		case a.ID == nil:
			// a request or notification of the server's
		case id == "null":
			nullAnswers = append(nullAnswers, a)
		default:
			if len(got[id]) == 0 && (byID[id].id != "" || id == end) {
				waiting--
			}
			got[id] = append(got[id], a)
		}
		return true
	}
	for waiting > 0 && read() {
	}
	require.Zero(t, waiting, "ids never answered; stderr:\n%s", stderr.String())
	require.NoError(t, stdin.Close())
	for read() {
	}
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	assert.NotContains(t, stderr.String(), "level=ERROR", "malformed input is the client's mistake, a warning at most")

	check := func(c corpusCase, a answerOf) {
		t.Helper()
		var text string
		if a.Error != nil {
			text = a.Error.Message
			assert.True(t, specCode(a.Error.Code), "%s: %d is no JSON-RPC code of the specification", c.kind, a.Error.Code)
			assert.Equal(t, c.code, a.Error.Code, "%s: %s", c.kind, text)
		} else {
			text = resultText(a.Result)
			assert.Zero(t, c.code, "%s: want an error, got %s", c.kind, text)
		}
		assert.Contains(t, text, c.says, c.kind)
		assert.NotRegexp(t, goInternals, text, "%s quotes Go's internals", c.kind)
		sent := string(bytes.Join(c.sends, nil))
		for _, m := range quotedPath.FindAllStringSubmatch(text, -1) {
			for _, part := range strings.Split(m[1], ".") {
				assert.Contains(t, sent, `"`+part+`":`, "%s: the path %q is not the request's", c.kind, m[1])
			}
		}
	}
	for id, c := range byID {
		if assert.Len(t, got[id], 1, "answers to %s (id %s)", c.kind, id) {
			check(c, got[id][0])
		}
	}
	also := map[string]bool{}
	for _, c := range cases {
		for _, id := range c.also {
			also[id] = true
			assert.Len(t, got[id], 1, "answers to the request %s of %s", id, c.kind)
		}
	}
	for id, answers := range got {
		if _, ok := byID[id]; !ok && !also[id] && id != end && id != `"corpus-init"` {
			t.Errorf("an answer no case expects: id %s, %d time(s)", id, len(answers))
		}
	}
	if assert.Len(t, nullAnswers, len(nulls), "answers with id null") {
		for i, c := range nulls {
			check(c, nullAnswers[i])
		}
	}
	if t.Failed() {
		var kinds []string
		for _, c := range cases {
			kinds = append(kinds, c.kind)
		}
		t.Logf("%d kinds in this session: %s", len(kinds), strings.Join(kinds, "; "))
	}
}

// resultText is the text of a result: a tool result's text contents, or
// the result as JSON.
func resultText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &res) != nil || len(res.Content) == 0 {
		return string(raw)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
