package sessionio

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// TestEightBytesAtATime: the word-at-a-time searches find the first byte
// they look for at every position, whatever follows it, and strings read
// through them unescape as encoding/json does, with the escapes at every
// offset of a word.
func TestEightBytesAtATime(t *testing.T) {
	for pos := range 9 {
		for _, c := range []byte{'"', '\\', 0, 0x1f, 'a', 0x20, 0x7f, 0x80, 0xff} {
			for _, rest := range []byte{'a', '"', '\\', 0, 0xff} {
				var w [8]byte
				for i := range w {
					w[i] = 'x'
					if i > pos {
						w[i] = rest
					}
				}
				if pos < 8 {
					w[pos] = c
				}
				x := binary.LittleEndian.Uint64(w[:])
				wantSpecial, wantSlash := 8, 8
				for i, b := range w {
					if special[b] && wantSpecial == 8 {
						wantSpecial = i
					}
					if b == '\\' && wantSlash == 8 {
						wantSlash = i
					}
				}
				if got := firstSpecial(x); got != wantSpecial {
					t.Errorf("firstSpecial(%q) = %d, want %d", w, got, wantSpecial)
				}
				if got := firstByte(x, '\\'); got != wantSlash {
					t.Errorf("firstByte(%q, '\\\\') = %d, want %d", w, got, wantSlash)
				}
			}
		}
	}
	for _, esc := range []string{`\"`, `\\`, `\/`, `\n`, `\u00e9`, `\u003c`, `\ud83d\ude00`, `\ud83d`, `\ude00x`} {
		for pad := range 17 {
			body := strings.Repeat("ab", pad)[:pad] + esc + strings.Repeat("é", pad) + esc + `{\"k\":\"v\"}`
			var want string
			if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
				t.Fatal(err)
			}
			s := scanner{data: []byte(`"` + body + `"`)}
			got, err := s.text()
			if err != nil || got != want {
				t.Errorf("text of %q = %q, %v; want %q", body, got, err, want)
			}
		}
	}
	// After an escape, a control character or the end of the data is
	// found at every offset of a word too.
	for pad := range 17 {
		for _, bad := range []string{`"\n` + strings.Repeat("x", pad) + "\x01\"", `"\n` + strings.Repeat("x", pad)} {
			s := scanner{data: []byte(bad)}
			if got, err := s.text(); err == nil {
				t.Errorf("text of %q = %q, want an error", bad, got)
			}
		}
	}
	for _, bad := range []string{`"\ud83d\uZZZZ"`, `"\ud83d\u12"`, `"\ud83d\u`, `"\u12"`, `"abc\"`, `"abc`, "\"a\x01\"", `"\x"`, `"0123456789\"`} {
		var v string
		if json.Unmarshal([]byte(bad), &v) == nil {
			t.Fatalf("encoding/json reads %s; the case proves nothing", bad)
		}
		s := scanner{data: []byte(bad)}
		if got, err := s.text(); err == nil {
			t.Errorf("text of %s = %q, want an error", bad, got)
		}
	}
}

// BenchmarkUnescape reads a tool result as the session files hold it: 5 KB
// of JSON text in a JSON string, an escaped quote every few bytes.
//
//	go test -run '^$' -bench Unescape -count 6 ./sessionio/
func BenchmarkUnescape(b *testing.B) {
	var rows [][]any
	for i := range 100 {
		rows = append(rows, []any{i, "customer " + strings.Repeat("x", i%7), "2026-11-22", 19.99})
	}
	result, _ := json.Marshal(map[string]any{"status": "success", "columns": []string{"id", "name", "day", "total"}, "rows": rows})
	quoted, _ := json.Marshal(string(result))
	b.SetBytes(int64(len(quoted)))
	for b.Loop() {
		s := scanner{data: quoted}
		if _, err := s.text(); err != nil {
			b.Fatal(err)
		}
	}
}
