package sessionio_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// The benchmarks of issue 11, goal 1: loading and saving a 10 MiB session
// file written the way the AIQ CLI writes them, each next to a yardstick
// that does the same work the plain encoding/json way, in one run:
//
//	go test -run '^$' -bench 'Load10MiB|Save10MiB' -count 6 ./sessionio/
//
// Besides the time of each, cpu-ms/op is the CPU time the process spent
// (all its threads, the garbage collector's included): on a machine that
// other work shares, it varies less than the time.

// tenMiB is the file of the benchmarks: about 9,200 messages.
func tenMiB(b *testing.B) []byte {
	b.Helper()
	data := sessiontest.GenerateCLIFile(sessionio.MaxFileSize - 4096)
	if err := sessiontest.CheckCLILoadRules(data); err != nil {
		b.Fatal(err)
	}
	return data
}

// plainLoad is the yardstick of loading: the file into a struct with raw
// elements, each element into a map, each content made a string.
func plainLoad(data []byte) (sessiontest.CLIView, []map[string]any, error) {
	var f sessiontest.CLIView
	if err := json.Unmarshal(data, &f); err != nil {
		return f, nil, err
	}
	msgs := make([]map[string]any, 0, len(f.RawMessages))
	for _, raw := range f.RawMessages {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return f, nil, err
		}
		switch c := m["content"].(type) {
		case string:
		case nil:
			m["content"] = ""
		default:
			text, err := json.Marshal(c)
			if err != nil {
				return f, nil, err
			}
			m["content"] = string(text)
		}
		msgs = append(msgs, m)
	}
	return f, msgs, nil
}

// BenchmarkLoad10MiB: plain is the yardstick; sessionio is session/load
// without the disk: Decode (which normalises every message) and the
// history built of it.
func BenchmarkLoad10MiB(b *testing.B) {
	data := tenMiB(b)
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			if _, _, err := plainLoad(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sessionio", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			f, warnings, err := sessionio.Decode(data)
			if err != nil || len(warnings) > 0 {
				b.Fatal(err, warnings)
			}
			if _, warnings := conversation.FromFile(f); len(warnings) > 0 {
				b.Fatal(warnings)
			}
		}
	})
}

// BenchmarkSave10MiB: plain is the yardstick, json.MarshalIndent of the
// plainly decoded file and os.WriteFile. cold is the first save of a
// loaded session, every message encoded; warm a save of a session saved
// before, which copies the bytes of its messages. Both write atomically
// (temporary file, rename) without waiting for the disk; durable is cold
// with the fsyncs of a real save, so the wait for the disk is durable
// minus cold.
func BenchmarkSave10MiB(b *testing.B) {
	data := tenMiB(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "session.json")
	b.Run("plain", func(b *testing.B) {
		f, msgs, err := plainLoad(data)
		if err != nil {
			b.Fatal(err)
		}
		value := struct {
			sessiontest.CLIView
			RawMessages []map[string]any `json:"raw_messages,omitempty"`
		}{f, msgs}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			out, err := json.MarshalIndent(value, "", "  ")
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, out, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	})
	save := func(b *testing.B, write func(string, []byte) error, fresh bool) {
		f, _, err := sessionio.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		s, _ := conversation.FromFile(f)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		cpu := cpuTime()
		for b.Loop() {
			if fresh {
				b.StopTimer()
				setup := cpuTime()
				s, _ = conversation.FromFile(f) // a session not saved yet
				cpu += cpuTime() - setup
				b.StartTimer()
			}
			out, notes, err := s.Encode()
			if err != nil || len(notes) > 0 {
				b.Fatal(err, notes)
			}
			if err := write(path, out); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	}
	b.Run("cold", func(b *testing.B) { save(b, sessionio.WriteFileNoSync, true) })
	b.Run("warm", func(b *testing.B) { save(b, sessionio.WriteFileNoSync, false) })
	b.Run("durable", func(b *testing.B) { save(b, sessionio.WriteFile, true) })
}

// reportCPU starts counting the CPU time of the process; the function it
// returns reports it per operation.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
