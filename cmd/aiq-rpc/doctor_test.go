package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

type doctorReport struct {
	OK     bool    `json:"ok"`
	Checks []check `json:"checks"`
}

func runDoctorJSON(t *testing.T, h home, extra ...string) (int, doctorReport) {
	t.Helper()
	code, out, errOut := runCommand(t, "", nil, append([]string{"doctor", "--home", h.Dir, "--json"}, extra...)...)
	var r doctorReport
	require.NoError(t, json.Unmarshal([]byte(out), &r), "stdout: %s\nstderr: %s", out, errOut)
	return code, r
}

func statusOf(r doctorReport, name string) check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return check{}
}

// TestDoctorPasses: against an endpoint that lists the model, streams,
// reasons and calls the tool, and a SQLite source, every check passes.
func TestDoctorPasses(t *testing.T) {
	srv := llmtest.NewServer(t, streamStep(t, "reasoning_content"),
		llmtest.Step{ToolCalls: []llmtest.Call{{ID: "c1", Name: "aiq_doctor_ping", Arguments: "{}"}}})
	srv.SetModels("test-model", "other")
	h := home{Dir: t.TempDir()}.withModel(t, srv.URL)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(dbtest.SQLite(t)))

	code, out, errOut := runCommand(t, "", nil, "doctor", "--home", h.Dir)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"home folder", "config.yaml", "sources.yaml", "the endpoint answers", "the model is listed",
		"a streamed reply arrives", "the model calls a tool", "reasoning", "source db"}
	require.Len(t, lines, len(want), out)
	for i, name := range want {
		assert.True(t, strings.HasPrefix(lines[i], "ok    "+name), "line %d: %q", i, lines[i])
	}
	assert.Contains(t, out, "reasoning: reasoning_content")
	assert.NotContains(t, out+errOut, testAPIKey)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"aiq_doctor_ping"}, reqs[1].Tools, "one request with the test tool")
}

// TestDoctorNoToolCall: a model that answers without calling the tool
// fails that check, says what to do, and the exit status says so.
func TestDoctorNoToolCall(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Step{Text: "OK"}, llmtest.Step{Text: "I would rather not."})
	srv.SetModels("test-model")
	h := newHome(t).withModel(t, srv.URL)
	h.writeFile(t, "config/sources.yaml", "[]\n")
	code, r := runDoctorJSON(t, h)
	assert.Equal(t, 1, code)
	assert.False(t, r.OK)
	c := statusOf(r, "the model calls a tool")
	assert.Equal(t, "fail", c.Status)
	assert.Contains(t, c.Fix, "supports tool calls")
	assert.Equal(t, "ok", statusOf(r, "a streamed reply arrives").Status)
}

// TestDoctorDown: an endpoint that is down fails the first model check and
// skips the others; one that hangs times out, and the line says which
// step.
func TestDoctorDown(t *testing.T) {
	h := newHome(t).withModel(t, "http://127.0.0.1:1/v1")
	h.writeFile(t, "config/sources.yaml", "[]\n")
	code, r := runDoctorJSON(t, h)
	assert.Equal(t, 1, code)
	assert.Equal(t, "fail", statusOf(r, "the endpoint answers").Status)
	assert.Contains(t, statusOf(r, "the endpoint answers").Fix, "llm.url")
	assert.Equal(t, "skip", statusOf(r, "the model calls a tool").Status)

	srv := llmtest.NewServer(t, llmtest.Step{Text: "begin", Hold: true})
	srv.SetModels("test-model")
	h = newHome(t).withModel(t, srv.URL)
	h.writeFile(t, "config/sources.yaml", "[]\n")
	code, r = runDoctorJSON(t, h, "--step-timeout", "2s")
	assert.Equal(t, 1, code)
	c := statusOf(r, "a streamed reply arrives")
	assert.Equal(t, "fail", c.Status)
	assert.Contains(t, c.Detail, "timed out after 2s")
}

// TestDoctorRedactsURLs: a password kept in the model's URL, and a key in
// its query, appear in neither doctor's text nor its JSON, though the
// checks name the URL.
func TestDoctorRedactsURLs(t *testing.T) {
	const secret = "pw-in-url-never-shown"
	h := newHome(t)
	h.writeFile(t, "config/config.yaml", "llm:\n  url: http://aiq:"+secret+"@127.0.0.1:1/v1?api_key="+secret+"&v=2\n  api_key: "+testAPIKey+"\n  model: test-model\n")
	h.writeFile(t, "config/sources.yaml", "[]\n")
	code, out, errOut := runCommand(t, "", nil, "doctor", "--home", h.Dir, "--step-timeout", "20s")
	assert.Equal(t, 1, code, "the endpoint is down")
	assert.Contains(t, out, "http://aiq:xxxxx@127.0.0.1:1/v1", "the URL is named, its password hidden")
	assert.NotContains(t, out+errOut, secret)
	code, r := runDoctorJSON(t, h, "--step-timeout", "20s")
	assert.Equal(t, 1, code)
	data, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), "aiq:xxxxx@127.0.0.1:1")
	assert.NotContains(t, string(data), secret)

	// A token as the URL's user name alone.
	h.writeFile(t, "config/config.yaml", "llm:\n  url: http://"+secret+"@127.0.0.1:1/v1\n  api_key: "+testAPIKey+"\n  model: test-model\n")
	code, out, errOut = runCommand(t, "", nil, "doctor", "--home", h.Dir, "--step-timeout", "20s")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "http://xxxxx@127.0.0.1:1/v1")
	assert.NotContains(t, out+errOut, secret)
	code, r = runDoctorJSON(t, h, "--step-timeout", "20s")
	assert.Equal(t, 1, code)
	data, err = json.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(data), secret)
}

func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		"model m at https://u:p@host/v1":         "model m at https://u:xxxxx@host/v1",
		"Post \"https://h/v1?key=abc&x=1\": EOF": "Post \"https://h/v1?key=xxxxx&x=1\": EOF",
		"https://host/v1 and http://u@h/":        "https://host/v1 and http://xxxxx@h/",
		"at https://ghp_tok3n@host/v1: EOF":      "at https://xxxxx@host/v1: EOF",
		"no url here":                            "no url here",
	} {
		assert.Equal(t, want, redactURLs(in), in)
	}
}
