package dbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dirPrefix starts the names of the folders of the test servers.
const dirPrefix = "aiq-dbtest-"

// ownerFile, in a server's folder, holds the id of the test process that
// made it.
const ownerFile = "owner.pid"

// process is a server process started by the tests.
type process struct {
	name string
	cmd  *exec.Cmd
	dir  string // removed once the process has stopped
	log  string // the server's output, for error messages
	// stopSignal asks the server to shut down cleanly.
	stopSignal syscall.Signal
	done       chan struct{} // closed when the process has exited
	waitErr    error
}

// makeDir creates the folder of a new server, after removing the folders
// of servers whose test process is gone. uid and gid own the folder when
// not -1.
func makeDir(engine string, uid, gid int) (string, error) {
	removeStaleDirs()
	dir, err := os.MkdirTemp("", dirPrefix+engine+"-")
	if err != nil {
		return "", fmt.Errorf("create the server folder: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", fmt.Errorf("create the server folder: %w", err)
	}
	if uid != -1 {
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", fmt.Errorf("give the server folder to uid %d: %w", uid, err)
		}
	}
	return dir, nil
}

// removeStaleDirs removes the server folders left by test processes that
// died before they could stop their servers. Their servers got the
// parent-death signal, so nothing uses the folders any more.
func removeStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || processAlive(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// startProcess starts a server. The process gets deathSignal when the test
// process dies, so that a killed test binary leaves no server behind. As
// the kernel sends that signal when the thread that started the child
// ends, the start happens on a thread locked for the process's whole life.
func startProcess(p *process, deathSignal syscall.Signal) error {
	if p.cmd.SysProcAttr == nil {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	p.cmd.SysProcAttr.Pdeathsig = deathSignal
	logFile, err := os.Create(filepath.Join(p.dir, p.name+".log"))
	if err != nil {
		return fmt.Errorf("create the log of %s: %w", p.name, err)
	}
	p.log = logFile.Name()
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.done = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer logFile.Close()
		defer close(p.done)
		if err := p.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = p.cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	return nil
}

// stop shuts the server down, killing it when it takes too long, and
// removes its folder.
func (p *process) stop() {
	if p.cmd.Process != nil {
		p.cmd.Process.Signal(p.stopSignal)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	os.RemoveAll(p.dir)
}

// exited reports whether the process has already ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// logTail returns the end of the server's output, for an error message.
func (p *process) logTail() string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return ""
	}
	const keep = 2000
	if len(data) > keep {
		data = data[len(data)-keep:]
	}
	return string(bytes.TrimSpace(data))
}

// waitReady calls ready until it succeeds, the process exits or ctx ends.
func (p *process) waitReady(ctx context.Context, ready func(ctx context.Context) error) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("%s exited (%v) before accepting connections; its log ends:\n%s", p.name, p.waitErr, p.logTail())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not accept connections in time (last error: %v); its log ends:\n%s", p.name, err, p.logTail())
		case <-tick.C:
		}
	}
}

// runTool runs a setup command (initdb, mariadb-install-db) to its end.
func runTool(ctx context.Context, attr *syscall.SysProcAttr, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", filepath.Base(name), err, bytes.TrimSpace(out))
	}
	return nil
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// findBinary returns the first of the paths (glob patterns) that exists.
func findBinary(patterns ...string) (string, error) {
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(pattern)
		for i := len(matches) - 1; i >= 0; i-- { // the newest version last in order
			if info, err := os.Stat(matches[i]); err == nil && !info.IsDir() {
				return matches[i], nil
			}
		}
		if path, err := exec.LookPath(pattern); err == nil && !strings.ContainsAny(pattern, "*") {
			return path, nil
		}
	}
	return "", errors.New("not found")
}
