package scrub

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// issued knows the tokens that end in :9 or :abcdef012345.
func issued(token string) bool {
	return strings.HasSuffix(token, ":9>") || strings.HasSuffix(token, ":abcdef012345>")
}

func tok(s *Set) func(int) string {
	return func(i int) string { return "<masked:" + s.Value(i).Column + ":" + fmt.Sprint(i) + ">" }
}

func TestReplaceText(t *testing.T) {
	s := New([]Value{
		{Column: "email", Text: "o'brien.zx4@example.net"},
		{Column: "email", Text: "ann@example.com"},
		{Column: "phone", Text: "+1-555-0142-778"},
		{Column: "name", Text: "ÉLODIE Straße"},
		{Column: "code", Text: "NY"}, // too short: never looked for
		{Column: "email", Text: "ann@example.com.au"},
		{Column: "name", Text: "  padded name "},
	})
	if s.Len() != 6 {
		t.Fatalf("Len = %d, want 6 (NY is too short)", s.Len())
	}
	for _, c := range []struct{ in, want string }{
		{`Duplicate entry 'o'brien.zx4@example.net' for key 'email'`, `Duplicate entry '<masked:email:0>' for key 'email'`},
		{`invalid input syntax for type integer: "+1-555-0142-778"`, `invalid input syntax for type integer: "<masked:phone:2>"`},
		{`ANN@EXAMPLE.COM and Ann@Example.Com.AU`, `<masked:email:1> and <masked:email:4>`},
		{`élodie straße ÉLODIE STRASSE`, `<masked:name:3> ÉLODIE STRASSE`},
		{`NY is short; <masked:email:9> stays`, `NY is short; <masked:email:9> stays`},
		{`<masked:x:abcdef012345> stays, <masked:x:` + "0" + `ann@example.com> does not`, `<masked:x:abcdef012345> stays, <masked:x:0<masked:email:1>> does not`},
		{`xann@example.comx`, `x<masked:email:1>x`},
		{`nothing here`, `nothing here`},
		{`name: Padded Name.`, `name: <masked:name:5>.`},
	} {
		if got := s.ReplaceText(c.in, tok(s), issued); got != c.want {
			t.Errorf("ReplaceText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestReplaceJSONKeepsJSON(t *testing.T) {
	s := New([]Value{
		{Column: "email", Text: `quote"d\back@example.net`},
		{Column: "note", Text: "<b>&bold</b>"},
		{Column: "salary", Text: "52000", Raw: int64(52000)},
		{Column: "word", Text: "null"},
	})
	rows := map[string]any{"rows": [][]any{{`quote"d\back@example.net`, 52000, "<b>&bold</b>", nil, 152000, "x52000x"}}, "row_count": 1}
	for _, html := range []bool{false, true} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if err := enc.Encode(rows); err != nil {
			t.Fatal(err)
		}
		got := s.ReplaceJSON(b.String(), tok(s), issued)
		var v any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("html %v: not JSON any more: %v\n%s", html, err, got)
		}
		for _, leak := range []string{`quote`, `bold`, `:52000`, `x52000x`} {
			if strings.Contains(got, leak) {
				t.Errorf("html %v: %q still in %s", html, leak, got)
			}
		}
		if !strings.Contains(got, "152000") || !strings.Contains(got, "null") {
			t.Errorf("html %v: a number or a literal that is no value changed: %s", html, got)
		}
	}
}

func TestNoValues(t *testing.T) {
	if s := New([]Value{{Text: "ab"}, {Text: "    "}}); s != nil {
		t.Fatalf("New of short values = %v, want nil", s)
	}
	var s *Set
	if got := s.ReplaceText("a text", nil, nil); got != "a text" {
		t.Fatalf("nil Set changed the text: %q", got)
	}
}

// FuzzReplaceText checks that no value is left in any case in the text,
// whatever surrounds it.
func FuzzReplaceText(f *testing.F) {
	f.Add("before ", "o'Brien@x.io", " after", "Ann@x.io")
	f.Add("", "ÉLODIE", "ß", "straSSe")
	f.Add("<masked:a:1>", "mask", "<", "asked")
	f.Fuzz(func(t *testing.T, pre, v1, post, v2 string) {
		s := New([]Value{{Column: "a", Text: v1}, {Column: "b", Text: v2}})
		if s == nil {
			return
		}
		text := pre + strings.ToUpper(v1) + post + v2 + strings.ToLower(v1)
		got := s.ReplaceText(text, func(int) string { return "\x00" }, nil)
		for i := range s.Len() {
			v, _ := lower(s.Value(i).Text)
			g, _ := lower(got)
			if strings.Contains(string(g), string(v)) && !strings.Contains(string(v), "\x00") {
				t.Fatalf("value %q left in %q (from %q)", s.Value(i).Text, got, text)
			}
		}
	})
}
