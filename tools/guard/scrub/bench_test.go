package scrub

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkNew100k builds a Set of 100,000 e-mail-like values with random
// prefixes, the worst case for the automaton's size, and reports the heap
// it keeps ("heap-MB").
func BenchmarkNew100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789._-"
	values := make([]Value, 100_000)
	for i := range values {
		v := make([]byte, 8+r.IntN(12))
		for j := range v {
			v[j] = letters[r.IntN(len(letters))]
		}
		values[i] = Value{Column: "email", Text: fmt.Sprintf("%s.%d@example.com", v, i)}
	}
	var heap float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New(values)
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(heap, "heap-MB")
}
