package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// BenchmarkLoadThroughBinary is issue 28's goal 3: session/load of a
// 10 MiB session file through the binary, against the yardstick in the
// same run, turn about: the file read with os.ReadFile and decoded by
// encoding/json, as sessionio's BenchmarkLoad10MiB's plain does it.
// ms-p50 is the median round trip of session/load, plain-ms-p50 the
// yardstick's median, and ratio the second over the first (the goal: 4).
// cpu-ms-p50 is the binary's own CPU time for the load (from /proc), and
// plain-cpu-ms-p50 the yardstick's; cpu-ratio, theirs, varies less on a
// busy machine. With AIQ_BENCH_PROFILES set to a folder, the binary
// writes its CPU profile there. Between loads the session is closed
// and the binary given a moment, out of the timing, to give its memory
// back, so that each load starts as a user's first does.
//
//	go test -run '^$' -bench LoadThroughBinary -benchtime 20x ./cmd/aiq-rpc/
func BenchmarkLoadThroughBinary(b *testing.B) {
	h := newHome(b)
	dir := b.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "aiq-bench-"); err == nil {
		b.Cleanup(func() { os.RemoveAll(shm) })
		dir = shm
	}
	path := filepath.Join(dir, "large.json")
	if err := os.WriteFile(path, sessiontest.GenerateCLIFile(sessionio.MaxFileSize-4096), 0o600); err != nil {
		b.Fatal(err)
	}
	var args []string
	if dir := os.Getenv("AIQ_BENCH_PROFILES"); dir != "" {
		// The binary's CPU profile of the run, for go tool pprof.
		args = []string{"--profile-cpu", filepath.Join(dir, "load.prof")}
	}
	p := startProc(b, h, procOptions{plain: true, args: args})
	p.initialize(nil)
	pid := p.cmd.Process.Pid
	var times, plain, cpu, plainCPU []time.Duration
	for b.Loop() {
		before, start := processCPU(b, pid), time.Now()
		var info conversation.LoadInfo
		p.client.Result("session/load", map[string]string{"path": path}, &info)
		took := time.Since(start)
		cpu = append(cpu, processCPU(b, pid)-before)
		times = append(times, took)

		b.StopTimer()
		p.client.Result("session/close", map[string]string{"sessionId": info.SessionID}, nil)
		time.Sleep(300 * time.Millisecond) // the binary gives its memory back
		mine, start := cpuTime(), time.Now()
		if err := plainLoadFile(path); err != nil {
			b.Fatal(err)
		}
		plain, plainCPU = append(plain, time.Since(start)), append(plainCPU, cpuTime()-mine)
		b.StartTimer()
	}
	b.StopTimer()
	// Ended as an editor ends it, so that --profile-cpu writes its profile.
	p.stdin.Close()
	p.wait()
	b.ReportMetric(medianMillis(times), "ms-p50")
	b.ReportMetric(medianMillis(plain), "plain-ms-p50")
	b.ReportMetric(medianMillis(plain)/medianMillis(times), "ratio")
	b.ReportMetric(medianMillis(cpu), "cpu-ms-p50")
	b.ReportMetric(medianMillis(plainCPU), "plain-cpu-ms-p50")
	b.ReportMetric(medianMillis(plainCPU)/medianMillis(cpu), "cpu-ratio")
}

// plainLoadFile is the yardstick: the file read, then decoded into a
// struct with raw elements, each element into a map, each content made a
// string.
func plainLoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var f sessiontest.CLIView
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	for _, raw := range f.RawMessages {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		switch c := m["content"].(type) {
		case string:
		case nil:
			m["content"] = ""
		default:
			text, err := json.Marshal(c)
			if err != nil {
				return err
			}
			m["content"] = string(text)
		}
	}
	return nil
}

// processCPU is the time the threads of process pid have run so far, to
// the nanosecond (/proc's user and system times count in ticks of 10 ms).
func processCPU(b *testing.B, pid int) time.Duration {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		b.Fatalf("no threads of process %d: %v", pid, err)
	}
	var total time.Duration
	for _, path := range tasks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		if err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		total += time.Duration(ns)
	}
	return total
}

// cpuTime is the user and system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
