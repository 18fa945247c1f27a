package sessionio

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendStringMatchesMarshal checks the string encoder against
// encoding/json, with and without HTML escapes, on strings that mix every
// kind of byte it treats apart, at every alignment of the word it reads at
// a time, and on random bytes.
func TestAppendStringMatchesMarshal(t *testing.T) {
	pieces := []string{"", "a", "plain text ", `"`, `\`, "<", ">", "&", "\x00", "\x1f", "\x7f", "é", "東京",
		"\u2028", "\u2029", "\xff", "\xc3", "\xed\xa0\x80", `{"k":"v"}`, strings.Repeat("x", 17)}
	var cases []string
	for _, a := range pieces {
		for _, b := range pieces {
			for pad := range 9 {
				cases = append(cases, strings.Repeat("p", pad)+a+strings.Repeat("q", pad)+b)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				b[i] = 'a' + byte(rng.IntN(26))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			prefix := []byte("[")
			got := appendString(prefix, s, html)
			if string(got) != "["+strings.TrimSuffix(want.String(), "\n") {
				t.Fatalf("appendString(%q, html %v) = %s, want %s", s, html, got[1:], want.String())
			}
		}
	}
}

// BenchmarkAppendString is the string encoder on a model's prose and on a
// tool result's JSON, 2 KB each.
//
//	go test -run '^$' -bench AppendString ./sessionio/
func BenchmarkAppendString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"prose", strings.Repeat("Most orders of last week were paid by card; the rest by transfer. ", 32)},
		{"json", strings.Repeat(`{"id":1,"name":"Ann","total":12.5},`, 58)},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 8<<10)
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				buf = appendString(buf[:0], c.s, true)
			}
		})
	}
}
