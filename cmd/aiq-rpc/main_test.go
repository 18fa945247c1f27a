package main

// The tests of this package build the aiq-rpc binary once (TestMain) and
// drive it as an editor does: through the pipes of a child process, with
// editortest.Client speaking the framing. Each test has its own AIQ home.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/rpc/editor/editortest"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// binary is the aiq-rpc command built by TestMain: with the race
// detector when the tests run with it, so that it watches the server too.
// plainBinary is built without it, for the tests that time the process
// (the kill loop and the benchmarks); it is binary when the tests run
// without the race detector.
var binary, plainBinary string

// Secrets written into every test home: no frame and no log line may ever
// hold them.
const (
	testPassword = "pw-hunter2-never-shown"
	testAPIKey   = "sk-test-key-never-shown"
)

// waitTimeout bounds every wait on a child process.
const waitTimeout = editortest.Timeout

func TestMain(m *testing.M) {
	if code, ok := actAsBrowser(); ok {
		os.Exit(code)
	}
	// AIQ_RPC_TEST_BINARY runs the tests on a binary built beforehand, for
	// a run as another user that cannot build.
	if prebuilt := os.Getenv("AIQ_RPC_TEST_BINARY"); prebuilt != "" {
		binary, plainBinary = prebuilt, prebuilt
		code := m.Run()
		dbtest.StopServers()
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "aiq-rpc-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	plainBinary = filepath.Join(dir, "aiq-rpc")
	err = goBuild(plainBinary)
	binary = plainBinary
	if err == nil && raceBuild {
		binary = filepath.Join(dir, "aiq-rpc-race")
		err = goBuild(binary, "-race")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build aiq-rpc:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	dbtest.StopServers()
	os.RemoveAll(dir)
	os.Exit(code)
}

func goBuild(out string, flags ...string) error {
	args := append([]string{"build", "-o", out}, flags...)
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return build.Run()
}

// home is an AIQ home folder of one test.
type home struct {
	Dir string
}

// newHome makes a home whose sources.yaml names two sources, one with a
// password. With two sources, a new session has no database unless told
// otherwise, so turns need no SQL tools.
func newHome(t testing.TB) home {
	t.Helper()
	h := home{Dir: t.TempDir()}
	h.writeFile(t, "config/sources.yaml", fmt.Sprintf(`- name: shop
  type: postgresql
  host: db.example
  port: 5432
  database: shop
  username: analyst
  password: %s
- name: local
  type: sqlite
  database: %s
`, testPassword, filepath.Join(h.Dir, "local.sqlite")))
	return h
}

// withModel points the home's config.yaml at url.
func (h home) withModel(t testing.TB, url string) home {
	t.Helper()
	h.writeFile(t, "config/config.yaml", fmt.Sprintf("llm:\n  url: %s\n  api_key: %s\n  model: test-model\n", url, testAPIKey))
	return h
}

func (h home) writeFile(t testing.TB, rel, content string) {
	t.Helper()
	path := filepath.Join(h.Dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

func (h home) sessionsDir() string { return filepath.Join(h.Dir, "sessions") }

// sessionFiles lists the session files of the home.
func (h home) sessionFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(h.sessionsDir(), "*.json"))
	require.NoError(t, err)
	return files
}

// env is the environment of a child: none of the caller's AIQ or OpenAI
// settings, so that only the test home counts.
func childEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AIQ_") || strings.HasPrefix(name, "OPENAI_") || name == "GORACE" {
			continue
		}
		out = append(out, kv)
	}
	// A race-detector binary would wait a second at exit for reports; a
	// report makes it exit 66, and the tests look for it on stderr.
	out = append(out, "GORACE=atexit_sleep_ms=0 exitcode=66")
	return append(out, extra...)
}

// syncBuffer is a bytes.Buffer safe for a child's copier and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// proc is a running aiq-rpc serving JSON-RPC on its pipes.
type proc struct {
	t       testing.TB
	home    home
	cmd     *exec.Cmd
	stdin   *os.File
	stdoutR *os.File    // the test's end of the child's stdout
	stdout  *syncBuffer // every byte the child wrote to stdout
	stderr  *syncBuffer
	client  *editortest.Client

	done     chan struct{} // closed when the child has exited
	exitCode int
	waitErr  error
}

type procOptions struct {
	plain  bool     // run plainBinary
	args   []string // after --home
	env    []string // extra environment
	noHome bool     // do not pass --home (the test sets AIQ_HOME)
}

// startProc starts aiq-rpc in serve mode on h. The child is killed when
// the test ends if it still runs; no frame and no log line may hold a
// secret of the home.
func startProc(t testing.TB, h home, o procOptions) *proc {
	t.Helper()
	args := o.args
	if !o.noHome {
		args = append([]string{"--home", h.Dir}, args...)
	}
	bin := binary
	if o.plain {
		bin = plainBinary
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = childEnv(o.env...)
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	p := &proc{t: t, home: h, cmd: cmd, stdin: inW, stdoutR: outR, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	require.NoError(t, cmd.Start())
	inR.Close()
	outW.Close()
	go func() {
		p.waitErr = cmd.Wait()
		p.exitCode = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	p.client = editortest.New(t, io.TeeReader(outR, p.stdout), inW)
	t.Cleanup(func() {
		p.kill()
		inW.Close()
		outR.Close()
		if t.Failed() {
			t.Logf("stderr of aiq-rpc %v:\n%s", args, p.stderr.String())
		}
		p.assertNoSecrets()
		assertNoRace(t, p.stderr.String())
	})
	return p
}

// assertNoRace fails the test when a race-detector binary reported a race.
func assertNoRace(t testing.TB, stderr string) {
	t.Helper()
	if i := strings.Index(stderr, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("the race detector found a race in aiq-rpc:\n%s", stderr[i:])
	}
}

// kill ends the child with SIGKILL, if it still runs, and reaps it.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// wait waits for the child to exit and returns its status.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.exitCode
	case <-time.After(waitTimeout):
		p.t.Fatalf("aiq-rpc did not exit within %v; stderr:\n%s", waitTimeout, p.stderr.String())
		return -1
	}
}

// exited reports whether the child has exited.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// initialize sends initialize and returns its result.
func (p *proc) initialize(params any) initResult {
	p.t.Helper()
	var res initResult
	p.client.Result("initialize", params, &res)
	return res
}

type initResult struct {
	ProtocolVersion int `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities struct {
		Methods []string `json:"methods"`
	} `json:"capabilities"`
	Home            string           `json:"home"`
	ModelConfigured bool             `json:"modelConfigured"`
	Sources         []map[string]any `json:"sources"`
	Warnings        []string         `json:"warnings"`
}

// closeStdin ends the child's input.
func (p *proc) closeStdin() {
	p.t.Helper()
	require.NoError(p.t, p.stdin.Close())
}

// assertNoSecrets checks that the home's secrets never left the process.
func (p *proc) assertNoSecrets() {
	for _, secret := range []string{testPassword, testAPIKey} {
		assert.NotContains(p.t, p.stdout.String(), secret, "a frame on stdout holds a secret")
		assert.NotContains(p.t, p.stderr.String(), secret, "stderr holds a secret")
	}
}

// assertOnlyFrames checks that stdout, up to now, is nothing but frames
// of JSON, and returns their bodies. Call it after the child has exited,
// so that no frame is cut.
func (p *proc) assertOnlyFrames() [][]byte {
	p.t.Helper()
	bodies, err := parseFrames(p.stdout.Bytes())
	require.NoError(p.t, err, "stdout must carry only frames")
	return bodies
}

// parseFrames reads data as a sequence of "Content-Length: N\r\n\r\n" and N
// bytes of JSON, with nothing before, between or after.
func parseFrames(data []byte) ([][]byte, error) {
	var bodies [][]byte
	r := bufio.NewReader(bytes.NewReader(data))
	offset := 0
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" {
			return bodies, nil
		}
		if err != nil {
			return bodies, fmt.Errorf("byte %d: a header line without its end: %q", offset, line)
		}
		value, ok := strings.CutPrefix(line, "Content-Length: ")
		if !ok || !strings.HasSuffix(value, "\r\n") {
			return bodies, fmt.Errorf("byte %d: want a Content-Length header, got %q", offset, line)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(value, "\r\n"))
		if err != nil || n <= 0 {
			return bodies, fmt.Errorf("byte %d: bad Content-Length %q", offset, value)
		}
		blank, err := r.ReadString('\n')
		if err != nil || blank != "\r\n" {
			return bodies, fmt.Errorf("byte %d: want the blank line that ends the header, got %q", offset+len(line), blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return bodies, fmt.Errorf("byte %d: a body of %d bytes cut short", offset+len(line)+2, n)
		}
		if !json.Valid(body) {
			return bodies, fmt.Errorf("byte %d: the body is not JSON: %q", offset+len(line)+2, body)
		}
		bodies = append(bodies, body)
		offset += len(line) + len(blank) + n
	}
}

// signal sends sig to the child.
func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	require.NoError(p.t, p.cmd.Process.Signal(sig))
}

// errorCode returns the code of an error response, failing on a result.
func errorCode(t testing.TB, m editortest.Message) int {
	t.Helper()
	require.NotNil(t, m.Error, "want an error, got result %s", m.Result)
	return m.Error.Code
}

// runCommand runs aiq-rpc to the end with args and stdin, and returns its
// status, stdout and stderr.
func runCommand(t testing.TB, stdin string, environ []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = childEnv(environ...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			require.NoError(t, err)
		}
	case <-time.After(waitTimeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("aiq-rpc %v did not finish within %v; stderr:\n%s", args, waitTimeout, stderr.String())
	}
	assertNoRace(t, stderr.String())
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}
