package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
)

// testTime is the creation time of the session files the tests write.
var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var update = flag.Bool("update", false, "rewrite the expect sections of testdata/malformed/*.txt from what the server answers")

// A transcript is one malformed-input case of testdata/malformed; the
// format is described in testdata/malformed/README.md.
type transcript struct {
	path       string
	comments   []string
	directives [][2]string
	section    string // "send": the bytes as they are; "body": framed with its Content-Length
	payload    []string
	expect     []expectation
}

// expectation is one response a case must draw.
type expectation struct {
	id      string // the id as JSON: null, 100, "abc"
	result  bool   // a result, not an error
	code    int
	message string // a substring of the error message
}

func (e expectation) String() string {
	if e.result {
		return e.id + " result"
	}
	return strings.TrimRight(fmt.Sprintf("%s %d %s", e.id, e.code, e.message), " ")
}

func parseTranscript(path string, data []byte) (*transcript, error) {
	tr := &transcript{path: path}
	in := ""
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		where := fmt.Sprintf("%s:%d", path, n+1)
		switch {
		case line == "-- send --" || line == "-- body --":
			if tr.section != "" {
				return nil, fmt.Errorf("%s: a second send or body section", where)
			}
			tr.section, in = strings.Trim(line, "- "), "payload"
		case line == "-- expect --":
			if tr.section == "" {
				return nil, fmt.Errorf("%s: expect before the send or body section", where)
			}
			in = "expect"
		case in == "payload":
			tr.payload = append(tr.payload, line)
		case in == "expect":
			e, err := parseExpectation(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			tr.expect = append(tr.expect, e)
		case strings.HasPrefix(line, "#"):
			tr.comments = append(tr.comments, line)
		case strings.TrimSpace(line) == "":
		default:
			key, value, ok := strings.Cut(line, ":")
			if !ok || !slices.Contains([]string{"init", "skip-root"}, key) {
				return nil, fmt.Errorf("%s: want a comment, a directive (init:, skip-root:) or a section, got %q", where, line)
			}
			tr.directives = append(tr.directives, [2]string{key, strings.TrimSpace(value)})
		}
	}
	switch {
	case len(tr.comments) == 0:
		return nil, fmt.Errorf("%s: no comment line says which mistake the case pins", path)
	case tr.section == "":
		return nil, fmt.Errorf("%s: no send or body section", path)
	}
	return tr, nil
}

func parseExpectation(line string) (expectation, error) {
	// The id is one JSON value: a string id may hold spaces.
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil {
		return expectation{}, fmt.Errorf("the line does not start with an id in JSON: %q", line)
	}
	id := line[:dec.InputOffset()]
	rest := strings.TrimPrefix(line[dec.InputOffset():], " ")
	if rest == "result" {
		return expectation{id: id, result: true}, nil
	}
	codeText, message, _ := strings.Cut(rest, " ")
	code, err := strconv.Atoi(codeText)
	if err != nil {
		return expectation{}, fmt.Errorf("want ID result or ID CODE MESSAGE, got %q", line)
	}
	return expectation{id: id, code: code, message: message}, nil
}

func (tr *transcript) directive(key string) (string, bool) {
	for _, d := range tr.directives {
		if d[0] == key {
			return d[1], true
		}
	}
	return "", false
}

func (tr *transcript) format() []byte {
	var b bytes.Buffer
	for _, c := range tr.comments {
		b.WriteString(c + "\n")
	}
	for _, d := range tr.directives {
		fmt.Fprintf(&b, "%s: %s\n", d[0], d[1])
	}
	fmt.Fprintf(&b, "-- %s --\n", tr.section)
	for _, l := range tr.payload {
		b.WriteString(l + "\n")
	}
	b.WriteString("-- expect --\n")
	for _, e := range tr.expect {
		b.WriteString(e.String() + "\n")
	}
	return b.Bytes()
}

// unescape turns \r, \n, \t, \\ and \xHH into their bytes; any other
// backslash stays as it is.
func unescape(s string) ([]byte, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		switch s[i+1] {
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case '\\':
			out = append(out, '\\')
		case 'x':
			if i+4 > len(s) {
				return nil, fmt.Errorf("a \\x escape without two hex digits at byte %d", i)
			}
			b, err := hex.DecodeString(s[i+2 : i+4])
			if err != nil {
				return nil, fmt.Errorf("bad \\x escape at byte %d: %w", i, err)
			}
			out = append(out, b...)
			i += 2
		default:
			out = append(out, '\\', s[i+1])
		}
		i++
	}
	return out, nil
}

// fixtures are the files a case's placeholders name, made when first used.
type fixtures struct {
	t      *testing.T
	values map[string]string // placeholder -> what it stands for
}

func (f *fixtures) value(name string) string {
	f.t.Helper()
	key := "{{" + name + "}}"
	if v, ok := f.values[key]; ok {
		return v
	}
	var v string
	t := f.t
	switch {
	case name == "dir":
		v = t.TempDir()
	case name == "unreadable":
		v = filepath.Join(t.TempDir(), "unreadable.json")
		s := conversation.NewSession("", "", testTime)
		data, _, err := s.Encode()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(v, data, 0o600))
		require.NoError(t, os.Chmod(v, 0))
	case name == "fifo":
		v = filepath.Join(t.TempDir(), "pipe.json")
		require.NoError(t, syscall.Mkfifo(v, 0o600))
	case name == "large":
		v = filepath.Join(t.TempDir(), "large.json")
		// Over the ceiling of what aiq-rpc opens, judged from the size alone:
		// sparse, so that it costs nothing.
		require.NoError(t, os.WriteFile(v, nil, 0o600))
		require.NoError(t, os.Truncate(v, 70<<20))
	case name == "badutf8":
		v = filepath.Join(t.TempDir(), "badutf8.json")
		data := "{\"metadata\":{\"created_at\":\"2026-01-02T03:04:05Z\",\"last_updated\":\"2026-01-02T03:04:05Z\",\"data_source\":\"shop\",\"database_type\":\"postgresql\"},\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}"
		require.NoError(t, os.WriteFile(v, []byte(data), 0o600))
	case name == "array":
		v = filepath.Join(t.TempDir(), "array.json")
		require.NoError(t, os.WriteFile(v, []byte(`[{"metadata":{"data_source":"shop"}}]`), 0o600))
	case strings.HasPrefix(name, "repeat "):
		fields := strings.SplitN(name, " ", 3)
		n, err := strconv.Atoi(fields[1])
		require.True(t, err == nil && len(fields) == 3, "want {{repeat N TEXT}}, got %s", key)
		v = strings.Repeat(fields[2], n)
	default:
		t.Fatalf("unknown placeholder %s", key)
	}
	f.values[key] = v
	return v
}

// expand replaces the placeholders of s.
func (f *fixtures) expand(s string) string {
	f.t.Helper()
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		j := strings.Index(s, "}}")
		if i < 0 || j < i {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(f.value(s[i+2 : j]))
		s = s[j+2:]
	}
}

// collapse puts the placeholders back into s, the longest value first.
func (f *fixtures) collapse(s string) string {
	keys := make([]string, 0, len(f.values))
	for k := range f.values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(f.values[keys[i]]) > len(f.values[keys[j]]) })
	for _, k := range keys {
		s = strings.ReplaceAll(s, f.values[k], k)
	}
	return s
}

// bytes are what the case sends.
func (tr *transcript) bytes(t *testing.T, fx *fixtures) []byte {
	t.Helper()
	raw, err := unescape(strings.Join(tr.payload, ""))
	require.NoError(t, err, tr.path)
	data := []byte(fx.expand(string(raw)))
	if tr.section == "body" {
		data = append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(data))), data...)
	}
	return data
}

// TestMalformedInput replays every transcript of testdata/malformed on a
// server of its own: each must draw exactly the responses it expects, no
// more, and the server must answer the next request and exit cleanly at
// the end of its input, having written nothing but frames.
func TestMalformedInput(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "malformed", "*.txt"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 30, "the malformed-input table")
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		tr, err := parseTranscript(path, data)
		require.NoError(t, err)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			t.Parallel()
			if reason, ok := tr.directive("skip-root"); ok && os.Geteuid() == 0 {
				t.Skipf("running as root: %s", reason)
			}
			replay(t, tr)
		})
	}
}

func replay(t *testing.T, tr *transcript) {
	fx := &fixtures{t: t, values: map[string]string{}}
	p := startProc(t, newHome(t), procOptions{})
	fx.values["{{home}}"] = p.home.Dir
	initialized := true
	if v, ok := tr.directive("init"); ok && v == "no" {
		initialized = false
	} else {
		p.initialize(nil)
	}
	c := p.client
	before := len(c.Messages())
	c.Send(tr.bytes(t, fx))

	// With -update too, the responses expected so far are waited for, so
	// that a slow one is not missed; a new case's are whatever comes before
	// the answers to the requests after it.
	{
		for _, e := range tr.expect {
			var m editortest.Message
			if e.id == "null" {
				m = c.WaitNullError()
			} else {
				m = c.Wait(json.RawMessage(fx.expand(e.id)))
			}
			if !*update {
				checkResponse(t, fx, e, m)
			}
		}
	}
	// The server goes on: the next request is answered.
	var followIDs []string
	if !initialized {
		id := c.Start("initialize", nil)
		followIDs = append(followIDs, string(id))
		require.Nil(t, c.Wait(id).Error, "initialize after the case")
	}
	for range 2 { // the second one also lets late answers to the case arrive
		id := c.Start("session/list", nil)
		followIDs = append(followIDs, string(id))
		m := c.Wait(id)
		require.Nil(t, m.Error, "the request after the case: %s", m.Raw)
	}

	var drawn []editortest.Message
	for _, m := range c.Messages()[before:] {
		if !(m.IsResponse() && slices.Contains(followIDs, string(m.ID))) {
			drawn = append(drawn, m)
		}
	}
	if *update {
		old := tr.expect
		tr.expect = nil
		for i, m := range drawn {
			require.True(t, m.IsResponse(), "the case drew a request or notification: %s", m.Raw)
			e := observed(fx, m)
			// A message cut down by hand stays while it still matches.
			if i < len(old) && old[i].id == e.id && old[i].code == e.code && old[i].result == e.result &&
				strings.Contains(e.message, old[i].message) && old[i].message != "" {
				e.message = old[i].message
			}
			tr.expect = append(tr.expect, e)
		}
		require.NoError(t, os.WriteFile(tr.path, tr.format(), 0o644))
	} else {
		var got []string
		for _, m := range drawn {
			got = append(got, string(m.Raw))
		}
		assert.Len(t, got, len(tr.expect), "the case must draw exactly the responses it expects; it drew:\n%s", strings.Join(got, "\n"))
	}
	if len(tr.expect) == 0 {
		first := c.Messages()[before]
		assert.True(t, first.IsResponse() && string(first.ID) == followIDs[0],
			"a case that wants no answer gets none: the first message after it answers the next request, got %s", first.Raw)
	}

	p.closeStdin()
	assert.Equal(t, 0, p.wait(), "a clean end of input after the case; stderr:\n%s", p.stderr.String())
	p.assertOnlyFrames()
}

// checkResponse checks one response against its expectation.
func checkResponse(t *testing.T, fx *fixtures, e expectation, m editortest.Message) {
	t.Helper()
	require.True(t, m.IsResponse(), "want a response, got %s", m.Raw)
	if e.result {
		assert.Nil(t, m.Error, "want a result for id %s, got %s", e.id, m.Raw)
		return
	}
	if !assert.NotNil(t, m.Error, "want error %d for id %s, got %s", e.code, e.id, m.Raw) {
		return
	}
	assert.Equal(t, e.code, m.Error.Code, "the code of %s", m.Raw)
	assert.Contains(t, m.Error.Message, fx.expand(e.message), "the message of %s", m.Raw)
	assert.NotRegexp(t, goInternals, m.Error.Message, "a message in words, without Go's internals: %s", m.Raw)
}

// observed is the expectation that m meets, for -update: the full message,
// with the fixtures' paths as placeholders.
func observed(fx *fixtures, m editortest.Message) expectation {
	id := string(m.ID)
	if id == "" {
		id = "null"
	}
	e := expectation{id: fx.collapse(id)}
	if m.Error == nil {
		e.result = true
		return e
	}
	e.code = m.Error.Code
	e.message = strings.ReplaceAll(fx.collapse(m.Error.Message), "\n", " ")
	return e
}
