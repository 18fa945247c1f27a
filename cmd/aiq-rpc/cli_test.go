package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

func TestVersion(t *testing.T) {
	code, out, errOut := runCommand(t, "", nil, "--version")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^aiq-rpc \S+\n$`, out)
	assert.Empty(t, errOut)
	for _, sub := range []string{"ask", "sessions"} {
		code, subOut, _ := runCommand(t, "", nil, sub, "--version")
		assert.Equal(t, 0, code, sub)
		assert.Equal(t, out, subOut, "%s --version", sub)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"ask", "--help"}, {"sessions", "--help"}, {"--home", "x", "ask", "-h"}} {
		code, out, errOut := runCommand(t, "", nil, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Empty(t, errOut, "%v: help goes to stdout, as asked for", args)
		assert.Contains(t, out, "Usage:", "%v", args)
		for _, want := range []string{"aiq-rpc ask [flags] QUESTION", "aiq-rpc sessions [flags]", "\n  -s, --session FILE\n",
			"\n  --source NAME\n", "\n  --home DIR\n", "\n  --history-limit N\n", "\n  --log-file PATH\n", "\n  --version\n",
			"\n  --model-timeout DURATION\n", "(default 2m0s)"} {
			assert.Contains(t, out, want, "%v", args)
		}
	}
	_, out, _ := runCommand(t, "", nil, "ask", "--help")
	assert.Contains(t, out, "\n  --json\n", "ask has --json")
	_, out, _ = runCommand(t, "", nil, "--help")
	assert.NotContains(t, out, "-json", "serve has no --json")
}

// TestBadCommandLine: each mistake is one line on stderr that says what is
// wrong and points to --help, with status 2.
func TestBadCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"--no-such-flag"}, "unknown flag --no-such-flag; run 'aiq-rpc --help'"},
		{[]string{"ask", "-no-such-flag", "q"}, "aiq-rpc ask: unknown flag -no-such-flag; run 'aiq-rpc ask --help'"},
		{[]string{"ask", "--model-timeout", "5", "q"}, `invalid value "5" for flag --model-timeout: a duration needs a unit, as in 5s or 5m`},
		{[]string{"ask", "--history-limit=-1", "q"}, `invalid value "-1" for flag --history-limit: give a whole number of turns above zero, as in 20`},
		{[]string{"--history-limit", "many"}, `give a whole number of turns above zero`},
		{[]string{"--statement-timeout", "soon"}, "not a duration; write it as in 30s, 2m or 1h30m"},
		{[]string{"--model-timeout", "-1s", "ask", "q"}, "give a duration above zero"},
		{[]string{"--home", "/nowhere", "bogus"}, `unknown command "bogus"; run 'aiq-rpc --help'`},
		{[]string{"sessions", "extra"}, `takes no arguments`},
		{[]string{"ask", "-s"}, "flag needs an argument: -s"},
		{[]string{"ask", "  "}, "aiq-rpc ask: the question is empty; give a question, or - to read it from stdin"},
		{[]string{"ask", "-"}, "aiq-rpc ask: stdin held no question"},
	}
	for _, c := range cases {
		code, out, errOut := runCommand(t, "", nil, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.says, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", c.args, errOut)
	}
}

// TestFlagsBeforeCommand: as in git and go, the common flags may come
// before the command, and those after it win.
func TestFlagsBeforeCommand(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "Before."}, llmtest.Step{Text: "After."})
	code, out, errOut := runCommand(t, "", nil, "--home", h.Dir, "ask", "q")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "Before.\n"), out)
	require.Len(t, h.sessionFiles(t), 1, "saved in --home")

	code, out, errOut = runCommand(t, "", nil, "--home", "/nonexistent/home", "ask", "--home", h.Dir, "q")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "After."), out)
	assert.Len(t, srv.Requests(), 2)

	code, out, errOut = runCommand(t, "", nil, "--home", h.Dir, "--source", "local", "sessions")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, h.sessionsDir())
	assert.Equal(t, 1+2, strings.Count(out, "\n"), "the header and two sessions: %s", out)
}

func TestSessionsCommand(t *testing.T) {
	h := newHome(t)
	code, out, errOut := runCommand(t, "", nil, "sessions", "--home", h.Dir)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "No saved sessions in "+h.sessionsDir()+".\n", out)

	for name, data := range sessiontest.CLIFiles() {
		h.writeFile(t, filepath.Join("sessions", name), string(data))
	}
	h.writeFile(t, "sessions/broken.json", `{"metadata": [`)
	h.writeFile(t, "sessions/empty.json", "")
	h.writeFile(t, "sessions/bare.json", "{}")
	code, out, errOut = runCommand(t, "", []string{"AIQ_HOME=" + h.Dir}, "sessions")
	assert.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 1+len(sessiontest.CLIFiles())+3, out)
	assert.NotContains(t, out, "load session", "the row names the file; its reason is enough")
	assert.Regexp(t, `\(unreadable: the file is empty\)\s+\S+/empty.json\n`, out)
	assert.NotContains(t, out, "0001-01-01", "a file without times shows when it was written")
	assert.Regexp(t, `^UPDATED\s+TURNS\s+SOURCE\s+FIRST QUESTION\s+PATH$`, lines[0])
	row := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d\s+\d+\s+`)
	var free, broken string
	for _, l := range lines[1:] {
		assert.Regexp(t, row, l)
		switch {
		case strings.HasSuffix(l, "cli-free-mode.session.json"):
			free = l
		case strings.HasSuffix(l, "broken.json"):
			broken = l
		}
	}
	freePath := filepath.Join(h.sessionsDir(), "cli-free-mode.session.json")
	s, _, err := conversation.Load(freePath)
	require.NoError(t, err)
	assert.Regexp(t, fmt.Sprintf(`\s%d\s+\(no database\)\s+hi free mode\s+%s$`, s.Turns(), regexp.QuoteMeta(freePath)), free)
	assert.Contains(t, broken, "(unreadable: ")
}

// askHome is a home with a model answering steps.
func askHome(t *testing.T, steps ...llmtest.Step) (home, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, steps...)
	return newHome(t).withModel(t, srv.URL), srv
}

var savedLine = regexp.MustCompile(`(?m)^Current session saved to (.+)\nContinue it with 'aiq -s (.+)' \(the AIQ CLI\) or 'aiq-rpc ask -s (.+) QUESTION'\.\n\z`)

func TestAsk(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "The table has three rows."})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "how", "many", "rows?")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "The table has three rows.\n"), "the answer first: %q", out)
	m := savedLine.FindStringSubmatch(out)
	require.NotNil(t, m, "the last lines say where the session went and both ways to go on: %q", out)
	assert.Equal(t, m[1], m[2])
	assert.Equal(t, m[1], m[3])
	assert.Equal(t, h.sessionsDir(), filepath.Dir(m[1]))
	assert.Equal(t, []string{m[1]}, h.sessionFiles(t))
	data, err := os.ReadFile(m[1])
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(data))

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "how many rows?", reqs[0].Messages[len(reqs[0].Messages)-1].Content, "the arguments are the question")
	assert.NotContains(t, errOut, testAPIKey)
	assert.NotContains(t, out, testAPIKey)
}

func TestAskJSON(t *testing.T) {
	h, _ := askHome(t, llmtest.Step{Text: "Forty two."})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "--json", "the answer?")
	require.Equal(t, 0, code, errOut)
	var ans conversation.Answer
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(&ans), "stdout is the answer as JSON: %q", out)
	assert.False(t, dec.More(), "and nothing else: %q", out)
	assert.Equal(t, "Forty two.", ans.Answer)
	assert.Equal(t, "end_turn", ans.StopReason)
	assert.Equal(t, h.sessionsDir(), filepath.Dir(ans.SavedTo))
	assert.NotContains(t, out, "Current session saved", "no text around the JSON")
}

func TestAskStdin(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "Read it."})
	question := "a question\nover two lines"
	code, out, errOut := runCommand(t, "  "+question+"\n\n", nil, "ask", "--home", h.Dir, "-")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "Read it.\n"), out)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, question, reqs[0].Messages[len(reqs[0].Messages)-1].Content, "stdin, trimmed, is the question")

	code, _, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "give a question")
}

func TestAskContinuesSession(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "Continued."})
	path, turns := cliFreeMode(t)
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", path, "and", "then?")
	require.Equal(t, 0, code, errOut)
	m := savedLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, path, m[1], "-s saves back to its file")
	assert.Empty(t, h.sessionFiles(t))
	s, _, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Equal(t, turns+1, s.Turns())
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	var contents []string
	for _, msg := range reqs[0].Messages {
		contents = append(contents, msg.Content)
	}
	assert.Contains(t, contents, "hi free mode", "the model sees the file's history")
}

func TestAskWithoutModel(t *testing.T) {
	h := newHome(t)
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "hello?")
	assert.Equal(t, 1, code)
	assert.NotContains(t, out, "Current session saved")
	assert.Contains(t, errOut, "aiq-rpc ask: No model is configured: ")
	assert.Contains(t, errOut, filepath.Join(h.Dir, "config", "config.yaml"))
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
}

// TestAskStreams shows that ask prints the answer as it arrives: with a
// model that never stops talking, text reaches stdout while the process
// still runs.
func TestAskStreams(t *testing.T) {
	h, _ := askHome(t, llmtest.Step{Text: "begin", Endless: true})
	cmd := exec.Command(binary, "ask", "--home", h.Dir, "talk forever")
	cmd.Env = childEnv()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	got := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var seen strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), "flood flood") || err != nil {
				got <- seen.String()
				return
			}
		}
	}()
	select {
	case text := <-got:
		assert.Contains(t, text, "flood flood", "streamed text on stdout")
		select {
		case <-done:
			t.Fatalf("the process ended before its answer did; stderr:\n%s", stderr.String())
		default:
		}
	case <-time.After(waitTimeout):
		t.Fatalf("no streamed text within %v; stderr:\n%s", waitTimeout, stderr.String())
	}
}

// TestQuestionStartsWithComment: a question led by a SQL comment is a
// question, not an unknown flag.
func TestQuestionStartsWithComment(t *testing.T) {
	h := home{Dir: t.TempDir()}
	code, out, errOut := runCommand(t, "", nil, "--home", h.Dir, "ask", "-- one\nSELECT 1 AS one", "--json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "> -- one\n  SELECT 1 AS one --json\n one\n", "the flags end at the question, as without the comment")
	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--json", "--  totals of one\nSELECT 1 AS one")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"rowCount": 1`, "flags before the question still count")
}

// TestAskNumbers: numbers print as the database gave them, to the right of
// their column as in psql, and --json keeps integers beyond 2^53 exact.
func TestAskNumbers(t *testing.T) {
	h := home{Dir: t.TempDir()}
	const q = "SELECT 123456789 AS n, 9007199254740993 AS big, 1234567.5 AS f, -5 AS neg, 'x' AS s"
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, q)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, ""+
		" n         | big              | f         | neg | s\n"+
		"-----------+------------------+-----------+-----+---\n"+
		" 123456789 | 9007199254740993 | 1234567.5 |  -5 | x\n"+
		"(1 row)\n")
	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--json", q)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `\[\s*123456789,\s*9007199254740993,\s*1234567.5,\s*-5,\s*"x"\s*\]`, out)
}

// TestProfileCPU: --profile-cpu and --profile-alloc write profiles, for
// the server and for a command, and a file one cannot create is one line
// that names the flag, before anything runs.
func TestProfileCPU(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--profile-cpu", "--profile-alloc"} {
		for _, args := range [][]string{{}, {"sessions"}} {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.prof", flag, len(args)))
			code, _, errOut := runCommand(t, "", nil, append([]string{"--home", newHome(t).Dir, flag, path}, args...)...)
			assert.Equal(t, 0, code, "%s %v: %s", flag, args, errOut)
			f, err := os.Open(path)
			require.NoError(t, err)
			// A profile is a gzipped protocol buffer.
			zr, err := gzip.NewReader(f)
			require.NoError(t, err, "%s %v", flag, args)
			data, err := io.ReadAll(zr)
			f.Close()
			assert.NoError(t, err, "%s %v", flag, args)
			assert.NotEmpty(t, data, "%s %v", flag, args)
		}
		code, out, errOut := runCommand(t, "", nil, flag, filepath.Join(dir, "missing", "cpu.prof"), "sessions")
		assert.Equal(t, 1, code)
		assert.Empty(t, out, "nothing ran")
		assert.Regexp(t, `^aiq-rpc: `+flag+`: open .*missing/cpu.prof: no such file or directory\n$`, errOut)
	}
}
