package sessionio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecodeMatchesOld checks the one-pass decoder and the direct encoder
// against the codec they replaced (oldcodec_test.go): the same files are
// refused with the same errors, the same files read as the same metadata,
// legacy messages, raw messages and extra keys with the same warnings,
// each chat message decodes to what DecodeMessage makes of its bytes, and
// Encode writes the same bytes. Invalid UTF-8, which the old decoder
// refused, must read as the old one reads the file with U+FFFD in its
// place. Seeds: the CLI's files and the odd shapes below.
func FuzzDecodeMatchesOld(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("sessiontest", "testdata", "cli", "*.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		`{"metadata":{"created_at":"2026-01-02T03:04:05Z","data_source":"x","database_type":"y"},"raw_messages":[{"role":"user","content":"a\u003cb \ud83d\ude00 \ud800"}]}`,
		`{"metadata":null,"messages":[{"role":"user","content":"q","timestamp":"2026-01-02T03:04:05+02:00"},{"role":"user"},7],"raw_messages":[null,{"role":"tool","content":{"b":1,"a":[1.50]}}]}`,
		`{"raw_messages":[{"role":"assistant","content":"","tool_calls":[{"id":"c","function":{"name":"f","arguments":{"x":1}},"index":0},{"id":"c","type":"function","function":{"name":"f"}}]}]}`,
		`{"raw_messages":[{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}","x":1}}],"Extra":{"k":[ 1, 2 ]},"a<b":"\u2028"}],"messages":5}`,
		`{"Metadata":{},"metadata":{"created_at":"2026-01-02T03:04:05Z","Data_Source":"q","x":{"a" : []}},"messages":[],"messages":null,"z":true}`,
		"{\"raw_messages\":[{\"role\":\"user\",\"content\":\"SELECT \xff\xfe name\"}],\"x\":\"\xc3\"}",
		`{"raw_messages":[{"role":"user","content":"a","content":"b"}]} x`,
		"{\n  \"raw_messages\": [\n    {\n      \"role\": \"assistant\",\n      \"content\": \"\",\n      \"tool_calls\": []\n    }\n  ]\n}",
		"{\n  \"raw_messages\": [\n    {\n      \"role\": \"assistant\",\n      \"content\": null,\n      \"tool_calls\": []\n    }\n  ]\n}",
	} {
		f.Add([]byte(seed))
	}
	// Elements laid out as Encode lays them out, whose bytes still differ
	// from what their message encodes to, so a save must not copy them.
	for _, element := range []string{
		`"tool_calls": [{"id": "c", "tYpe": "function", "function": {"name": "f", "arguments": "{}"}}]`,
		`"tool_calls": [{"id": "c", "type": "", "function": {"name": "f", "arguments": "{}"}}]`,
		`"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}", "x": 1}}]`,
		`"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}}]`,
		`"tool_call_id": ""`,
		`"name": ""`,
	} {
		f.Add([]byte("{\n  \"raw_messages\": [\n    {\n      \"role\": \"assistant\",\n      \"content\": \"\",\n      " + element + "\n    }\n  ]\n}"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstOld(t, data)
	})
}

func checkAgainstOld(t *testing.T, data []byte) {
	t.Helper()
	got, gotWarnings, gotErr := Decode(data)
	oldInput := data
	badUTF8 := !utf8.Valid(data)
	if badUTF8 {
		oldInput, _ = replaceInvalidUTF8(data)
	}
	if len(oldInput) > MaxFileSize {
		return // the old decoder refused these by size alone
	}
	want, wantWarnings, wantErr := oldDecode(oldInput)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("new error %v, old error %v\ninput: %q", gotErr, wantErr, data)
	}
	if gotErr != nil {
		// With invalid UTF-8 the old error counted the bytes of U+FFFD.
		if !badUTF8 && gotErr.Error() != wantErr.Error() {
			t.Fatalf("errors differ\nnew: %v\nold: %v\ninput: %q", gotErr, wantErr, data)
		}
		return
	}
	if badUTF8 {
		gotWarnings = withoutUTF8Warnings(gotWarnings)
	}
	if !reflect.DeepEqual(gotWarnings, wantWarnings) {
		t.Fatalf("warnings differ\nnew: %q\nold: %q\ninput: %q", gotWarnings, wantWarnings, data)
	}
	if !reflect.DeepEqual(got.Metadata, want.Metadata) || !reflect.DeepEqual(got.Messages, want.Messages) || !reflect.DeepEqual(got.Extra, want.Extra) {
		t.Fatalf("files differ\nnew: %+v\nold: %+v\ninput: %q", got, want, data)
	}
	if len(got.RawMessages) != len(want.RawMessages) || len(got.Elements) != len(got.RawMessages) {
		t.Fatalf("%d raw messages and %d elements, old %d\ninput: %q", len(got.RawMessages), len(got.Elements), len(want.RawMessages), data)
	}
	for i, raw := range want.RawMessages {
		if !bytes.Equal(got.RawMessages[i], raw) {
			t.Fatalf("raw_messages[%d] differs\nnew: %s\nold: %s", i, got.RawMessages[i], raw)
		}
		m, w, err := DecodeMessage(raw)
		e := got.Elements[i]
		if fmt.Sprint(e.Err) != fmt.Sprint(err) || !reflect.DeepEqual(e.Warnings, w) || !reflect.DeepEqual(e.Message, m) {
			t.Fatalf("raw_messages[%d] decodes differently\nnew: %+v %q %v\nold: %+v %q %v\nraw: %s", i, e.Message, e.Warnings, e.Err, m, w, err, raw)
		}
		if e.BadUTF8 && !badUTF8 {
			t.Fatalf("raw_messages[%d] said to hold invalid UTF-8", i)
		}
		if e.AsWritten {
			checkAsWritten(t, raw, e.Message)
		}
	}
	if got.Metadata.CreatedAt.IsZero() {
		got.Metadata.CreatedAt = time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
	}
	out, err := Encode(got)
	old, oldErr := oldEncode(got)
	if (err != nil) != (oldErr != nil) || !bytes.Equal(out, old) {
		t.Fatalf("encodings differ\nnew (%v):\n%s\nold (%v):\n%s", err, out, oldErr, old)
	}
}

// checkAsWritten fails unless raw, an element whose bytes a save may copy,
// holds the same JSON value as the message it decoded to: a save that
// copies the bytes must write what one that encodes the message would, so
// nothing that loading normalises (an empty tool_calls, null content, ...)
// is ever kept.
func checkAsWritten(t *testing.T, raw json.RawMessage, m Message) {
	t.Helper()
	encoded, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal(encoded, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("an element a save would copy is not what its message encodes to\nbytes:   %s\nmessage: %s", raw, encoded)
	}
}

func withoutUTF8Warnings(warnings []string) []string {
	var out []string
	for _, w := range warnings {
		if !strings.HasSuffix(w, badUTF8Warning) {
			out = append(out, w)
		}
	}
	return out
}

// TestEncodeMessageMatchesMarshal: an element Encode writes from a message
// is the message's MarshalJSON, indented in its place.
func TestEncodeMessageMatchesMarshal(t *testing.T) {
	m := Message{Role: RoleAssistant, Content: "a < b \u2028 \x01 \"q\"\n\xff", ToolCalls: []ToolCall{
		{ID: "c1", Type: "function", Function: FunctionCall{"execute_sql", `{"sql":"SELECT 1"}`}, Extra: map[string]json.RawMessage{"index": json.RawMessage(" 0 ")}},
	}, Extra: map[string]json.RawMessage{"reasoning": json.RawMessage(`{"steps": [1, {"a": []}]}`), "Role": json.RawMessage(`"x"`)}}
	got, err := EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Indent(&want, compact, "    ", "  "); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Fatalf("EncodeMessage:\n%s\nMarshal, indented:\n%s", got, want.String())
	}
}
