package main

// The tests of aiq-rpc in a terminal: a pseudo-terminal of the test's own
// (openPTY) stands in for the user's, on whichever of the child's stdin and
// stderr the case needs; stdout stays a pipe, so that what the command
// prints for scripts is checked apart from what it draws on the screen.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// openPTY opens a pseudo-terminal pair as Linux's openpty does.
func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err, "open /dev/ptmx")
	fd := int(m.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlock the pseudo-terminal")
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	require.NoError(t, err, "find the pseudo-terminal's number")
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() {
		m.Close()
		s.Close()
	})
	return m, s
}

// termProc is aiq-rpc running with a terminal on some of its streams.
type termProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	screen *syncBuffer // what the child wrote to the terminal
	stdout *syncBuffer // the child's stdout, a pipe
	done   chan struct{}
}

// which names the streams that get the terminal.
type which struct{ stdin, stderr bool }

// startInTerminal starts aiq-rpc with args; stdin, when not the terminal,
// is stdin's text.
func startInTerminal(t *testing.T, w which, stdin string, args ...string) *termProc {
	t.Helper()
	master, slave := openPTY(t)
	p := &termProc{t: t, master: master, screen: &syncBuffer{}, stdout: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary, args...)
	p.cmd.Env = childEnv()
	p.cmd.Stdout = p.stdout
	p.cmd.Stdin, p.cmd.Stderr = strings.NewReader(stdin), p.stdout
	if w.stdin {
		p.cmd.Stdin = slave
	}
	if w.stderr {
		p.cmd.Stderr = slave
	} else {
		p.cmd.Stderr = p.screen
	}
	require.NoError(t, p.cmd.Start())
	slave.Close() // the child holds it now: its exit ends the reads below
	copied := make(chan struct{})
	go func() {
		io.Copy(p.screen, master) // until the child's end closes the terminal
		close(copied)
	}()
	go func() {
		p.cmd.Wait()
		select {
		case <-copied:
		case <-time.After(waitTimeout):
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("screen of aiq-rpc %v:\n%q\nstdout:\n%s", args, p.screen.String(), p.stdout.String())
		}
		assertNoRace(t, p.screen.String())
	})
	return p
}

// waitScreen waits until the terminal shows text.
func (p *termProc) waitScreen(text string) {
	p.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(p.screen.String(), text) {
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never showed %q; it shows:\n%q", text, p.screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typeLine types line and Enter.
func (p *termProc) typeLine(line string) {
	p.t.Helper()
	_, err := p.master.WriteString(line + "\n")
	require.NoError(p.t, err)
}

// wait returns the exit status.
func (p *termProc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(waitTimeout):
		p.t.Fatalf("aiq-rpc did not exit within %v; screen:\n%q", waitTimeout, p.screen.String())
		return -1
	}
}

// text is what the terminal shows, with its line ends as in a file.
func (p *termProc) text() string {
	return strings.ReplaceAll(p.screen.String(), "\r\n", "\n")
}

// demoHome is a home with no source, so that sessions use the demo
// database, and a model answering steps.
func demoHome(t *testing.T, steps ...llmtest.Step) (home, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, steps...)
	h := home{Dir: t.TempDir()}
	return h.withModel(t, srv.URL), srv
}

func deleteCall() llmtest.Step {
	return llmtest.Step{ToolCalls: []llmtest.Call{{ID: "c1", Name: "execute_sql", Arguments: `{"sql":"DELETE FROM orders WHERE id = 1"}`}}}
}

// toolResult is the tool result the model read in its second request.
func toolResult(t *testing.T, srv *llmtest.Server, n int) string {
	t.Helper()
	reqs := srv.Requests()
	require.Greater(t, len(reqs), n)
	msgs := reqs[n].Messages
	return msgs[len(msgs)-1].Content
}

func TestAskConfirmOnTerminal(t *testing.T) {
	h, srv := demoHome(t, deleteCall(), llmtest.Step{Text: "Deleted."}, deleteCall(), llmtest.Step{Text: "Kept."})

	p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "delete order 1")
	p.waitScreen("Run it? [y/N/a] ")
	assert.Contains(t, p.text(), "\nThis statement changes the database: DELETE removes rows from a table.\n  DELETE FROM orders WHERE id = 1\n"+
		"This DELETE would remove 1 row (counted in a transaction that was rolled back).\n"+
		"a(lways): Allow DELETE on orders, up to 10 rows at a time, for this conversation.\n")
	p.typeLine("y")
	require.Equal(t, 0, p.wait())
	assert.Contains(t, p.stdout.String(), "(1 row affected)\n")
	assert.Contains(t, p.stdout.String(), "Deleted.")

	p = startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "delete order 1 again")
	p.waitScreen("Run it? [y/N/a] ")
	p.typeLine("") // Enter is the safe answer
	require.Equal(t, 0, p.wait())
	out := p.stdout.String()
	assert.Contains(t, out, "\nYou declined this statement, so it did not run.\n", "one sentence for the user")
	assert.NotContains(t, out, "not run: ")
	assert.NotContains(t, out, "retry")
	assert.Contains(t, toolResult(t, srv, 3), "Do not retry it", "the model keeps its own wording")
}

// TestAskMaskedConfirmOnTerminal: the prompt of a write that names its
// rows by a masked token says what the token stands for; the model's
// requests hold no masked value.
func TestAskMaskedConfirmOnTerminal(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, email text)",
		"INSERT INTO customers VALUES (1, 'ann@example.com'), (2, 'bob@example.com')",
	)
	token := regexp.MustCompile(`<masked:email:([0-9a-f]{12,})>`)
	call := func(id, sql string) llmtest.Step {
		return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": sql})}}}
	}
	srv := llmtest.NewServer(t, call("c1", "SELECT id, email FROM customers WHERE id = 2"),
		llmtest.Step{Respond: func(req llmtest.Request) llmtest.Step {
			return call("c2", "DELETE FROM customers WHERE email = '"+token.FindString(req.Messages[len(req.Messages)-1].Content)+"'")
		}},
		llmtest.Step{Text: "Kept."})
	h := home{Dir: t.TempDir()}.withModel(t, srv.URL)
	h.writeFile(t, "config/sources.yaml", sourcesYAML(src)+"  mask: [customers.email]\n")

	p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "--source", "db", "delete customer 2")
	p.waitScreen("Run it? [y/N/a] ")
	m := token.FindStringSubmatch(p.text())
	require.NotNil(t, m, "the prompt shows no token:\n%s", p.text())
	assert.Contains(t, p.text(), "'"+m[0]+"'\n  <masked:email:"+m[1][:4]+"…> is bob@example.com\n")
	p.typeLine("")
	require.Equal(t, 0, p.wait())
	for _, r := range srv.Requests() {
		assert.NotContains(t, string(r.Body), "bob@example.com", "request %d to the model holds the masked value", r.N)
	}
}

// TestAskAllowAlwaysOnTerminal answers a(lways) to one DELETE: the next
// DELETE on orders with a WHERE runs without asking, one without a WHERE
// asks with no "always" to offer.
func TestAskAllowAlwaysOnTerminal(t *testing.T) {
	call := func(id, sql string) llmtest.Step {
		return llmtest.Step{ToolCalls: []llmtest.Call{{ID: id, Name: "execute_sql", Arguments: mustJSON(map[string]string{"sql": sql})}}}
	}
	h, srv := demoHome(t, call("c1", "DELETE FROM orders WHERE id = 1"), call("c2", "DELETE FROM orders WHERE id = 2"),
		call("c3", "DELETE FROM orders"), llmtest.Step{Text: "Done."})
	p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "delete orders")
	p.waitScreen("Run it? [y/N/a] ")
	p.typeLine("a")
	p.waitScreen("Run it? [y/N] ")
	p.typeLine("a") // not on offer: a no
	require.Equal(t, 0, p.wait())
	assert.Equal(t, 1, strings.Count(p.text(), "Run it? [y/N/a] "), "the second DELETE with a WHERE did not ask")
	assert.Contains(t, p.text(), "  DELETE FROM orders\nThis DELETE would remove 1,998 rows (counted in a transaction that was rolled back).\nRun it? [y/N] ")
	assert.Contains(t, toolResult(t, srv, 3), "declined")
	assert.Contains(t, p.stdout.String(), "> DELETE FROM orders WHERE id = 1\n(1 row affected)\n\n> DELETE FROM orders WHERE id = 2\n(1 row affected)\n")
}

func TestAskRefusedWriteWithoutTerminal(t *testing.T) {
	const sentence = "This statement writes; run it from a terminal to confirm it.\n"
	h, srv := demoHome(t, deleteCall(), llmtest.Step{Text: "It was refused."})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "delete order 1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "> DELETE FROM orders WHERE id = 1\n"+sentence)
	assert.Contains(t, toolResult(t, srv, 1), "not run: ", "the model reads why")

	// Without a model, the statement runs directly; its outcome is the
	// whole answer.
	noModel := home{Dir: t.TempDir()}
	code, out, errOut = runCommand(t, "", nil, "ask", "--home", noModel.Dir, "DELETE FROM orders WHERE id = 1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "> DELETE FROM orders WHERE id = 1\n"+sentence+"\nCurrent session saved to ")
	m := savedLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	s, _, err := conversation.Load(m[1])
	require.NoError(t, err)
	require.NotEmpty(t, s.Legacy)
	assert.Equal(t, "This statement writes to the database, and it could not be confirmed here, so it did not run.",
		s.Legacy[len(s.Legacy)-1].Content, "the saved answer, which the CLI shows, is the user's sentence")
	code, out, errOut = runCommand(t, "", nil, "ask", "--home", noModel.Dir, "SELECT status FROM orders GROUP BY status ORDER BY status")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `\(4 rows\)\n\nCurrent session saved to `, out, "the table, then where it was saved")
	for _, internal := range []string{"not run: not run", "the editor", "Query executed successfully", "Sample data"} {
		assert.NotContains(t, out, internal)
		assert.NotContains(t, errOut, internal)
	}
}

// sourceGoneSession writes a session file whose source, "gone", is not
// configured.
func sourceGoneSession(t *testing.T) string {
	t.Helper()
	data := `{"metadata":{"created_at":"2026-11-20T10:00:00Z","last_updated":"2026-11-20T10:01:00Z",` +
		`"data_source":"gone","database_type":"postgresql"},` +
		`"messages":[{"role":"user","content":"count the rows","timestamp":"2026-11-20T10:00:00Z"},` +
		`{"role":"assistant","content":"There are 3.","timestamp":"2026-11-20T10:01:00Z"}]}`
	require.NoError(t, sessiontest.CheckCLILoadRules([]byte(data)))
	path := filepath.Join(t.TempDir(), "gone.session.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

func TestAskSourceGoneWithoutTerminal(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "Going on."})
	path := sourceGoneSession(t)
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", path, "and now?")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "Going on.\n"), out)
	assert.Equal(t, 1, strings.Count(errOut, `"gone"`), "said once: %q", errOut)
	assert.Contains(t, errOut, `warning: The session's data source "gone" is not configured here; until another is chosen, it has no database.`)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Empty(t, reqs[0].Tools, "no database, so no SQL tools")
}

// TestAskWithoutSource: with sources configured and no --source, a new
// session's question goes without a database, and the warning says how to
// choose one; on a terminal the user picks one first, as in the AIQ CLI.
func TestAskWithoutSource(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "No database here."})
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "how many rows?")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "No database here.\n"), out)
	assert.Contains(t, errOut, "warning: No data source was chosen, so this question goes without a database; choose one with --source NAME (shop, local).\n")
	require.Len(t, srv.Requests(), 1)
	assert.Empty(t, srv.Requests()[0].Tools, "no database, so no SQL tools")

	for _, c := range []struct {
		name, answer string
		tools        bool
	}{{"pick local", "2", true}, {"Enter is no database", "", false}} {
		t.Run(c.name, func(t *testing.T) {
			h, srv := askHome(t, llmtest.Step{Text: "Counted."})
			p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "how many rows?")
			p.waitScreen("Choice [3]: ")
			assert.Contains(t, p.text(), "Ask with:\n  1) shop (postgresql)\n  2) local (sqlite)\n  3) no database\n")
			p.typeLine(c.answer)
			require.Equal(t, 0, p.wait())
			assert.True(t, strings.HasPrefix(p.stdout.String(), "Counted.\n"), p.stdout.String())
			assert.NotContains(t, p.text(), "No data source was chosen", "the menu asked instead")
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, c.tools, len(reqs[0].Tools) > 0, "tools %v", reqs[0].Tools)
		})
	}
}

func TestAskSourceGoneOnTerminal(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		tools        bool
	}{{"pick local", "2", true}, {"Enter is no database", "", false}} {
		t.Run(c.name, func(t *testing.T) {
			h, srv := askHome(t, llmtest.Step{Text: "Going on."})
			path := sourceGoneSession(t)
			p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "-s", path, "and now?")
			p.waitScreen("Choice [3]: ")
			assert.Contains(t, p.text(), "Continue the session with:\n  1) shop (postgresql)\n  2) local (sqlite)\n  3) no database\n")
			p.typeLine(c.answer)
			require.Equal(t, 0, p.wait())
			assert.True(t, strings.HasPrefix(p.stdout.String(), "Going on.\n"), p.stdout.String())
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, c.tools, len(reqs[0].Tools) > 0, "tools %v", reqs[0].Tools)
			if c.tools {
				var f struct {
					Metadata struct {
						DataSource string `json:"data_source"`
					} `json:"metadata"`
				}
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(data, &f))
				assert.Equal(t, "local", f.Metadata.DataSource, "the session goes on with the source picked")
			}
		})
	}
}

func TestAskMissingSession(t *testing.T) {
	h, srv := askHome(t, llmtest.Step{Text: "never"})
	missing := filepath.Join(t.TempDir(), "none.json")
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", missing, "q")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "aiq-rpc ask: There is no session file at "+missing+"; check the path.\n", errOut)

	code, out, errOut = runCommand(t, "", nil, "ask", "--home", h.Dir, "--json", "-s", missing, "q")
	assert.Equal(t, 1, code)
	assert.Empty(t, errOut)
	var res struct {
		Error struct {
			Code    int
			Message string
			Data    struct{ Detail string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), "an error as JSON on stdout: %q", out)
	assert.Equal(t, -32010, res.Error.Code)
	assert.Equal(t, "There is no session file at "+missing+"; check the path.", res.Error.Message)
	assert.Contains(t, res.Error.Data.Detail, "session/load: ")
	assert.Empty(t, srv.Requests(), "no turn")
	assert.Empty(t, h.sessionFiles(t), "no new session in its place")
}

func TestAskWarningsOnce(t *testing.T) {
	h := home{Dir: t.TempDir()}
	h.writeFile(t, "config/config.yaml", "llm: [\n")
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "SELECT 1 AS one")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "(1 row)")
	assert.Equal(t, 1, strings.Count(errOut, "The model configuration could not be read"), "once: %q", errOut)
	assert.NotContains(t, errOut, "level=", "no log lines around it")
}

func TestAskWaitingIndicator(t *testing.T) {
	h, _ := askHome(t, llmtest.Step{Text: "At last.", Delay: time.Second})
	p := startInTerminal(t, which{stderr: true}, "", "ask", "--home", h.Dir, "slow?")
	require.Equal(t, 0, p.wait())
	screen := p.screen.String()
	i := strings.Index(screen, "waiting for the model…")
	require.GreaterOrEqual(t, i, 0, "the indicator while the model works: %q", screen)
	assert.True(t, strings.HasSuffix(screen, "\r\x1b[K"), "erased at the end: %q", screen)
	assert.True(t, strings.HasPrefix(p.stdout.String(), "At last.\n"), "stdout holds no drawing: %q", p.stdout.String())

	// Not on a pipe.
	code, _, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "slow?")
	assert.Equal(t, 1, code, "the model has no more answers")
	assert.NotContains(t, errOut, "waiting for the model")
}

func TestServeOnTerminal(t *testing.T) {
	h := newHome(t)
	p := startInTerminal(t, which{stdin: true, stderr: true}, "", "--home", h.Dir)
	p.waitScreen("aiq-rpc ask QUESTION")
	assert.Contains(t, p.text(), "aiq-rpc speaks JSON-RPC on stdin and stdout for editors")
	select {
	case <-p.done:
		t.Fatal("it still serves after saying so")
	case <-time.After(100 * time.Millisecond):
	}
	_, err := p.master.Write([]byte{4}) // Ctrl-D: the end of input
	require.NoError(t, err)
	assert.Equal(t, 0, p.wait())
	assert.Empty(t, p.stdout.String(), "stdout is for frames only")

	code, out, errOut := runCommand(t, "", nil, "--home", h.Dir)
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.NotContains(t, errOut, "speaks JSON-RPC", "an editor's pipe gets no notice")
}

// TestAskSaveFails: a turn that cannot be saved is said once, and the
// status is 1.
func TestAskSaveFails(t *testing.T) {
	h := home{Dir: t.TempDir()}
	h.writeFile(t, "sessions", "a file where the folder should be")
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "SELECT 1 AS one")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "(1 row)", "the answer still shows")
	assert.NotContains(t, out, "Current session saved")
	assert.Equal(t, 1, strings.Count(errOut, "saved"), "said once: %q", errOut)
	assert.Equal(t, 1, strings.Count(errOut, "error: "), "labelled as an error: %q", errOut)
	assert.NotContains(t, errOut, "level=", "no log lines on stderr")
}

// TestAskCtrlC: the first Ctrl-C cancels the turn on the server and erases
// the indicator; the session stays as it was.
func TestAskCtrlC(t *testing.T) {
	// The model holds its answer far longer than the test waits: only a
	// turn cancelled on the server lets the command end in time.
	h, srv := demoHome(t, llmtest.Step{Text: "Four."}, llmtest.Step{Text: "never", Delay: 10 * waitTimeout})
	code, _, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "how many orders?")
	require.Equal(t, 0, code, errOut)
	files := h.sessionFiles(t)
	require.Len(t, files, 1)
	before, err := os.ReadFile(files[0])
	require.NoError(t, err)

	p := startInTerminal(t, which{stderr: true}, "", "ask", "--home", h.Dir, "-s", files[0], "how many are there?")
	p.waitScreen("waiting for the model…")
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	require.Equal(t, 130, p.wait())
	require.Len(t, srv.Requests(), 2, "the model was asked")
	screen := p.screen.String()
	last := screen[strings.LastIndex(screen, "waiting for the model…"):]
	assert.Equal(t, "waiting for the model…\r\x1b[Kaiq-rpc ask: Cancelled; the session is as it was before the question.\r\n", last,
		"the indicator erased, then one sentence")
	assert.Empty(t, p.stdout.String())
	after, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the session is as it was")
	assert.Len(t, h.sessionFiles(t), 1, "no new session")

	// --json says it as JSON, with LSP's code for a cancelled request.
	srv.Add(llmtest.Step{Text: "never", Delay: 10 * waitTimeout})
	p = startInTerminal(t, which{stderr: true}, "", "ask", "--home", h.Dir, "--json", "how many?")
	p.waitScreen("waiting for the model…")
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	require.Equal(t, 130, p.wait())
	assert.JSONEq(t, `{"error":{"code":-32800,"message":"Cancelled; the session is as it was before the question."}}`, p.stdout.String())
}

// TestAskCtrlCAtPrompt: Ctrl-C at the confirmation is a cancel, and the
// statement does not run.
func TestAskCtrlCAtPrompt(t *testing.T) {
	h := home{Dir: t.TempDir()}
	p := startInTerminal(t, which{stdin: true, stderr: true}, "", "ask", "--home", h.Dir, "DELETE FROM orders WHERE id = 1")
	p.waitScreen("Run it? [y/N/a] ")
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	require.Equal(t, 130, p.wait())
	assert.Contains(t, p.text(), "Run it? [y/N/a] \naiq-rpc ask: Cancelled; the session is as it was before the question.\n")
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "SELECT count(*) AS n FROM orders WHERE id = 1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n 1\n(1 row)", "the order is still there")
}
