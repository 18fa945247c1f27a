package sessionio_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// cliFileNames are the files the CLI wrote that the tests below expect
// sessiontest.CLIFiles to return; listing them makes a lost file a failure
// instead of a silently shorter loop.
var cliFileNames = []string{
	"cli-db-mode.session.json",
	"cli-free-mode.session.json",
	"cli-risk-and-error.session.json",
	"normalization-input.session.json",
	"normalization-output.session.json",
	"session-pkg-db-mode.session.json",
}

// cliFiles returns the CLI's files in a fixed order, after checking that
// none is missing.
func cliFiles(t testing.TB) []namedFile {
	t.Helper()
	files := sessiontest.CLIFiles()
	for _, name := range cliFileNames {
		require.Contains(t, files, name, "sessiontest.CLIFiles lost a file")
	}
	var out []namedFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		out = append(out, namedFile{name, files[name]})
	}
	return out
}

type namedFile struct {
	name string
	data []byte
}

// roundTripForm returns a copy of f in the form that a round trip through
// Encode and Decode must preserve exactly. Encode is documented to write
// times in UTC and re-indents the JSON it keeps without interpreting it
// (raw messages, unknown keys), and it writes an unset last_updated as
// created_at; so times are put in UTC, kept JSON is compacted, an unset
// last_updated takes created_at, and an empty list is the same as none.
// Everything else must survive unchanged.
func roundTripForm(t testing.TB, f *sessionio.File) *sessionio.File {
	t.Helper()
	out := &sessionio.File{
		Metadata: sessionio.Metadata{
			CreatedAt:    f.Metadata.CreatedAt.UTC(),
			LastUpdated:  f.Metadata.LastUpdated.UTC(),
			DataSource:   f.Metadata.DataSource,
			DatabaseType: f.Metadata.DatabaseType,
			Extra:        compactMap(t, f.Metadata.Extra),
		},
		Extra: compactMap(t, f.Extra),
	}
	if f.Metadata.LastUpdated.IsZero() {
		out.Metadata.LastUpdated = out.Metadata.CreatedAt
	}
	for _, m := range f.Messages {
		m.Timestamp = m.Timestamp.UTC()
		out.Messages = append(out.Messages, m)
	}
	for _, raw := range f.RawMessages {
		out.RawMessages = append(out.RawMessages, compact(t, raw))
	}
	return out
}

func compactMap(t testing.TB, m map[string]json.RawMessage) map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	out := map[string]json.RawMessage{}
	for k, v := range m {
		out[k] = compact(t, v)
	}
	return out
}

func compact(t testing.TB, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, raw), "kept JSON is not valid: %s", raw)
	return buf.Bytes()
}

// validMetadata is a metadata object the CLI accepts, for tests about the
// other parts of a file.
const validMetadata = `{"created_at": "2026-02-02T07:45:51Z", "last_updated": "2026-02-02T07:46:00Z", "data_source": "local-mysql", "database_type": "mysql"}`

func TestDecodeCLIFiles(t *testing.T) {
	for _, file := range cliFiles(t) {
		t.Run(file.name, func(t *testing.T) {
			var want sessiontest.CLIView
			require.NoError(t, json.Unmarshal(file.data, &want), "the CLI's reading of its own file")

			got, warnings, err := sessionio.Decode(file.data)
			require.NoError(t, err)
			assert.Empty(t, warnings, "the CLI's own files need no repair")

			assert.True(t, want.Metadata.CreatedAt.Equal(got.Metadata.CreatedAt), "created_at: want %v, got %v", want.Metadata.CreatedAt, got.Metadata.CreatedAt)
			assert.True(t, want.Metadata.LastUpdated.Equal(got.Metadata.LastUpdated), "last_updated: want %v, got %v", want.Metadata.LastUpdated, got.Metadata.LastUpdated)
			assert.Equal(t, want.Metadata.DataSource, got.Metadata.DataSource)
			assert.Equal(t, want.Metadata.DatabaseType, got.Metadata.DatabaseType)

			require.Len(t, got.Messages, len(want.Messages))
			for i, m := range want.Messages {
				assert.Equal(t, m.Role, got.Messages[i].Role, "messages[%d]", i)
				assert.Equal(t, m.Content, got.Messages[i].Content, "messages[%d]", i)
				assert.True(t, m.Timestamp.Equal(got.Messages[i].Timestamp), "messages[%d].timestamp", i)
			}
			require.Len(t, got.RawMessages, len(want.RawMessages))
			for i, raw := range want.RawMessages {
				assert.JSONEq(t, string(raw), string(got.RawMessages[i]), "raw_messages[%d]", i)
			}
		})
	}
}

// The CLI writes its no-database sessions with empty names; Decode must read
// them as "no database", which is "" in Metadata.
func TestDecodeCLIFreeMode(t *testing.T) {
	got, warnings, err := sessionio.Decode(sessiontest.CLIFiles()["cli-free-mode.session.json"])
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, "", got.Metadata.DataSource)
	assert.Equal(t, "", got.Metadata.DatabaseType)
	assert.Len(t, got.Messages, 4)
	assert.Len(t, got.RawMessages, 7)
}

// normalization-input.session.json has a +08:00 offset and a key of a newer
// aiq-rpc in its metadata; both must be read, the key kept for writing back.
func TestDecodeCLINormalizationInput(t *testing.T) {
	got, warnings, err := sessionio.Decode(sessiontest.CLIFiles()["normalization-input.session.json"])
	require.NoError(t, err)
	assert.Empty(t, warnings)

	want := time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
	assert.True(t, want.Equal(got.Metadata.CreatedAt), "created_at: want %v, got %v", want, got.Metadata.CreatedAt)
	_, offset := got.Metadata.CreatedAt.Zone()
	assert.Equal(t, 8*60*60, offset, "the offset as written in the file")
	assert.Equal(t, "local-mysql", got.Metadata.DataSource)
	assert.Equal(t, "mysql", got.Metadata.DatabaseType)

	require.Contains(t, got.Metadata.Extra, "x_aiq_rpc")
	assert.JSONEq(t, `{"client": "vscode"}`, string(got.Metadata.Extra["x_aiq_rpc"]))
	assert.Len(t, got.Metadata.Extra, 1, "known keys must not leak into Extra")
	assert.Nil(t, got.Extra)
	// Twelve elements, including "not-an-object" and null: raw messages are
	// kept undecoded, as the CLI keeps them.
	require.Len(t, got.RawMessages, 12)
	assert.JSONEq(t, `"not-an-object"`, string(got.RawMessages[9]))
	assert.JSONEq(t, `null`, string(got.RawMessages[10]))
}

func TestDecodeRefusals(t *testing.T) {
	valid := `{"metadata": ` + validMetadata + `}`
	tests := []struct {
		name string
		data string
		// want are parts of the message: what is wrong, and where.
		want []string
	}{
		{name: "empty file", data: "", want: []string{"empty"}},
		{name: "whitespace only", data: " \n\t\r\n ", want: []string{"empty"}},
		{name: "byte order mark", data: "\xEF\xBB\xBF" + valid, want: []string{"byte order mark"}},
		// Invalid UTF-8 outside a string is a syntax error, as in the CLI:
		// the bad byte is on line 2, column 15 (after two spaces and `"metadata": `).
		{name: "invalid UTF-8 outside a string", data: "{\n  \"metadata\": \xff\n}", want: []string{"invalid character", "line 2, column 15"}},
		{name: "top-level array", data: `[` + valid + `]`, want: []string{"want one JSON object", "an array"}},
		{name: "top-level string", data: `"session"`, want: []string{"want one JSON object", "a string"}},
		{name: "top-level number", data: `42`, want: []string{"want one JSON object", "a number"}},
		{name: "top-level null", data: `null`, want: []string{"want one JSON object", "null"}},
		{name: "top-level boolean", data: `true`, want: []string{"want one JSON object", "a boolean"}},
		{name: "trailing bytes", data: valid + "\nx", want: []string{"not valid JSON", "line 2", "after top-level value"}},
		{name: "two objects", data: valid + "\n" + valid, want: []string{"not valid JSON", "line 2", "after top-level value"}},
		{name: "truncated", data: "{\n  \"metadata\": {\n    \"created_at\": \"2026", want: []string{"not valid JSON", "line 3, column 24", "end of JSON input"}},
		{name: "metadata as array", data: `{"metadata": []}`, want: []string{"metadata: want an object, found an array"}},
		{name: "metadata as string", data: `{"metadata": "x"}`, want: []string{"metadata: want an object, found a string"}},
		{name: "created_at as number", data: `{"metadata": {"created_at": 1767225600}}`, want: []string{"metadata.created_at: want an RFC 3339 time, found a number"}},
		{name: "created_at without zone", data: `{"metadata": {"created_at": "2026-02-02T15:45:51"}}`, want: []string{"metadata.created_at:", `"2026-02-02T15:45:51"`, "with a zone"}},
		{name: "created_at not a time", data: `{"metadata": {"created_at": "yesterday"}}`, want: []string{"metadata.created_at:", `"yesterday"`}},
		{name: "last_updated as boolean", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "last_updated": false}}`, want: []string{"metadata.last_updated: want an RFC 3339 time, found a boolean"}},
		{name: "data_source as number", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": 3}}`, want: []string{"metadata.data_source: want a string, found a number"}},
		{name: "database_type as object", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "database_type": {}}}`, want: []string{"metadata.database_type: want a string, found an object"}},
		{name: "messages as object", data: `{"metadata": ` + validMetadata + `, "messages": {"role": "user"}}`, want: []string{"messages: want an array, found an object"}},
		{name: "raw_messages as string", data: `{"metadata": ` + validMetadata + `, "raw_messages": "[]"}`, want: []string{"raw_messages: want an array, found a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := sessionio.Decode([]byte(tt.data))
			require.Error(t, err)
			assert.ErrorIs(t, err, sessionio.ErrInvalid)
			assert.NotErrorIs(t, err, sessionio.ErrTooLarge)
			assert.Nil(t, got)
			assert.Nil(t, warnings)
			for _, part := range tt.want {
				assert.Contains(t, err.Error(), part)
			}
		})
	}
}

// A syntax error's column must point at the offending character, as the
// invalid UTF-8 message does, so that an editor puts the cursor on it.
func TestDecodeSyntaxErrorColumn(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		// 'x' is the 14th character of line 1.
		{name: "bad value", data: `{"metadata": x}`, want: "line 1, column 14"},
		// 'x' is the 3rd character of line 2.
		{name: "bad value on line 2", data: "{\n  x\n}", want: "line 2, column 3"},
		// The second object starts at the 1st character of line 2.
		{name: "second object", data: "{}\n{}", want: "line 2, column 1"},
		// A closing brace too many as the very last byte of the file (the
		// most common slip when a file is edited by hand) is column 19.
		{name: "extra brace at the end", data: `{"metadata": null}}`, want: "line 1, column 19"},
		{name: "extra brace before a newline", data: "{\"metadata\": null}}\n", want: "line 1, column 19"},
		// At the end of the input the column is the one after the last
		// character, where the missing text belongs.
		{name: "end of input", data: `{"metadata":`, want: "line 1, column 13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := sessionio.Decode([]byte(tt.data))
			require.ErrorIs(t, err, sessionio.ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Files over the 10 MiB that aiq-rpc writes are read up to the ceiling,
// which is checked before anything is parsed.
func TestDecodeSizeLimit(t *testing.T) {
	valid := []byte(`{"metadata": ` + validMetadata + `}`)
	pad := func(n int) []byte {
		return append(slices.Clone(valid), bytes.Repeat([]byte(" "), n-len(valid))...)
	}

	t.Run("over the write limit", func(t *testing.T) {
		_, _, err := sessionio.Decode(pad(sessionio.MaxFileSize + 1))
		require.NoError(t, err)
	})
	t.Run("at the ceiling", func(t *testing.T) {
		_, _, err := sessionio.Decode(pad(sessionio.MaxReadSize))
		require.NoError(t, err)
	})
	t.Run("one byte over the ceiling", func(t *testing.T) {
		got, _, err := sessionio.Decode(pad(sessionio.MaxReadSize + 1))
		require.Error(t, err)
		assert.Nil(t, got)
		assert.ErrorIs(t, err, sessionio.ErrTooLarge)
		assert.NotErrorIs(t, err, sessionio.ErrInvalid)
		var sizeErr *sessionio.SizeError
		require.ErrorAs(t, err, &sizeErr)
		assert.Equal(t, int64(sessionio.MaxReadSize+1), sizeErr.Size)
		assert.Contains(t, err.Error(), "64.0 MiB that aiq-rpc opens")
		assert.Contains(t, err.Error(), "start a new session")
	})
}

// Invalid UTF-8 inside a string reads as U+FFFD, as the CLI reads it, with
// a warning that names the element; the file then saves as valid UTF-8.
func TestDecodeInvalidUTF8(t *testing.T) {
	data := "{\"metadata\": " + validMetadata + ", \"messages\": [{\"role\": \"user\", \"content\": \"SELECT \xff\xfe name\"}]," +
		" \"raw_messages\": [{\"role\": \"system\", \"content\": \"p\"}, {\"role\": \"user\", \"content\": \"SELECT \xff\xfe name\"}], \"x\": \"\xc3\"}"
	got, warnings, err := sessionio.Decode([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, "SELECT \uFFFD\uFFFD name", got.Messages[0].Content)
	require.Len(t, got.Elements, 2)
	assert.False(t, got.Elements[0].BadUTF8)
	assert.True(t, got.Elements[1].BadUTF8)
	assert.Equal(t, "SELECT \uFFFD\uFFFD name", got.Elements[1].Message.Content)
	assert.Equal(t, []string{
		"x: invalid UTF-8, read as U+FFFD (\uFFFD) as the AIQ CLI reads it",
		"messages[0]: invalid UTF-8, read as U+FFFD (\uFFFD) as the AIQ CLI reads it",
	}, warnings)
	out, err := sessionio.Encode(got)
	require.NoError(t, err)
	assert.True(t, utf8.Valid(out))
	_, warnings, err = sessionio.Decode(out)
	require.NoError(t, err)
	assert.Empty(t, warnings)
}

// Legacy messages that make the CLI refuse the whole file are dropped one by
// one, each named in a warning, and the good ones around them are kept.
func TestDecodeSkipsBadLegacyMessages(t *testing.T) {
	const good0 = `{"role": "user", "content": "count users", "timestamp": "2026-02-02T07:45:51Z"}`
	const good2 = `{"role": "assistant", "content": "There are 3.", "timestamp": "2026-02-02T07:45:52Z"}`
	tests := []struct {
		name string
		bad  string
		want string
	}{
		{name: "not an object", bad: `"hello"`, want: "messages[1]: want an object, found a string"},
		{name: "null", bad: `null`, want: "messages[1]: want an object, found null"},
		{name: "array", bad: `[]`, want: "messages[1]: want an object, found an array"},
		{name: "role system", bad: `{"role": "system", "content": "be brief"}`, want: `messages[1].role: want "user" or "assistant", found "system"`},
		{name: "role in capitals", bad: `{"role": "User", "content": "hi"}`, want: `messages[1].role: want "user" or "assistant", found "User"`},
		{name: "missing role", bad: `{"content": "hi"}`, want: `messages[1].role: want "user" or "assistant", found ""`},
		{name: "role as number", bad: `{"role": 1, "content": "hi"}`, want: "messages[1].role: want a string, found a number"},
		{name: "empty content", bad: `{"role": "assistant", "content": ""}`, want: "messages[1].content: empty"},
		{name: "missing content", bad: `{"role": "assistant"}`, want: "messages[1].content: empty"},
		{name: "content as number", bad: `{"role": "assistant", "content": 42}`, want: "messages[1].content: want a string, found a number"},
		{name: "content as object", bad: `{"role": "assistant", "content": {"text": "hi"}}`, want: "messages[1].content: want a string, found an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"metadata": ` + validMetadata + `, "messages": [` + good0 + `, ` + tt.bad + `, ` + good2 + `]}`
			got, warnings, err := sessionio.Decode([]byte(data))
			require.NoError(t, err)
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0], tt.want)
			assert.Contains(t, warnings[0], "skipped")
			require.Len(t, got.Messages, 2)
			assert.Equal(t, "count users", got.Messages[0].Content)
			assert.Equal(t, "There are 3.", got.Messages[1].Content)
		})
	}
}

// A malformed timestamp costs only the timestamp, not the message.
func TestDecodeBadTimestampKeepsMessage(t *testing.T) {
	tests := []struct {
		name      string
		timestamp string
		want      string
	}{
		{name: "no zone", timestamp: `"2026-02-02T07:45:51"`, want: `messages[0].timestamp: "2026-02-02T07:45:51" is not an RFC 3339 time with a zone`},
		{name: "number", timestamp: `1767225600`, want: "messages[0].timestamp: want an RFC 3339 time, found a number"},
		{name: "garbage", timestamp: `"soon"`, want: `messages[0].timestamp: "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"metadata": ` + validMetadata + `, "messages": [{"role": "user", "content": "hi", "timestamp": ` + tt.timestamp + `}]}`
			got, warnings, err := sessionio.Decode([]byte(data))
			require.NoError(t, err)
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0], tt.want)
			assert.Contains(t, warnings[0], "dropped")
			require.Len(t, got.Messages, 1)
			assert.Equal(t, sessionio.LegacyMessage{Role: "user", Content: "hi"}, got.Messages[0])
		})
	}
}

// A timestamp the CLI reads (year 9999 at -01:00) but whose UTC form is in
// year 10000 cannot be written in RFC 3339. Like a malformed timestamp it
// must cost only itself, not make every later save of the session fail.
func TestDecodeTimestampOutsideWritableRange(t *testing.T) {
	for _, ts := range []string{"9999-12-31T23:59:59-01:00", "0000-01-01T00:30:00+01:00"} {
		t.Run(ts, func(t *testing.T) {
			data := `{"metadata": ` + validMetadata + `, "messages": [{"role": "user", "content": "hi", "timestamp": "` + ts + `"}]}`
			require.NoError(t, sessiontest.CheckCLILoadRules([]byte(data)), "the CLI reads this file")
			f, _, err := sessionio.Decode([]byte(data))
			require.NoError(t, err)
			require.Len(t, f.Messages, 1)

			out, err := sessionio.Encode(f)
			require.NoError(t, err, "the session can never be saved again")
			assert.NoError(t, sessiontest.CheckCLILoadRules(out))
		})
	}
}

// A file without metadata still has a conversation worth loading; it is
// read as a session with no database.
func TestDecodeMissingMetadata(t *testing.T) {
	for name, data := range map[string]string{
		"absent": `{"raw_messages": [{"role": "user", "content": "hi"}]}`,
		"null":   `{"metadata": null, "raw_messages": [{"role": "user", "content": "hi"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			got, warnings, err := sessionio.Decode([]byte(data))
			require.NoError(t, err)
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0], "metadata: missing")
			assert.Equal(t, sessionio.Metadata{}, got.Metadata)
			assert.Len(t, got.RawMessages, 1)
			assert.Nil(t, got.Extra, "metadata must not be kept as an unknown key")
		})
	}
}

// aiq-rpc's placeholders for "no database" read back as "", and the type is
// read in lower case as the CLI writes it.
func TestDecodeSourceNames(t *testing.T) {
	tests := []struct {
		name                 string
		source, typ          string
		wantSource, wantType string
	}{
		{name: "placeholders", source: sessionio.NoSourceName, typ: sessionio.NoSourceType},
		{name: "CLI free mode", source: "", typ: ""},
		{name: "real source", source: "local-mysql", typ: "mysql", wantSource: "local-mysql", wantType: "mysql"},
		{name: "type in capitals", source: "pg", typ: "PostgreSQL", wantSource: "pg", wantType: "postgresql"},
		// Decode reads the type in lower case, so "NONE" is the placeholder
		// as much as "none" is.
		{name: "placeholder type in capitals", source: sessionio.NoSourceName, typ: "NONE"},
		// The placeholder name only stands for "no database" exactly.
		{name: "name like the placeholder", source: "(No Database)", typ: "mysql", wantSource: "(No Database)", wantType: "mysql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := fmt.Sprintf(`{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": %q, "database_type": %q}}`, tt.source, tt.typ)
			got, _, err := sessionio.Decode([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, tt.wantSource, got.Metadata.DataSource)
			assert.Equal(t, tt.wantType, got.Metadata.DatabaseType)

			// Whatever Decode read, writing it and reading it again must
			// give the same: a session must not change by being saved.
			out, err := sessionio.Encode(got)
			require.NoError(t, err)
			again, _, err := sessionio.Decode(out)
			require.NoError(t, err)
			assert.Equal(t, got.Metadata.DataSource, again.Metadata.DataSource)
			assert.Equal(t, got.Metadata.DatabaseType, again.Metadata.DatabaseType)
		})
	}
}

// encoding/json, which the CLI reads with, matches keys case-insensitively
// (with Unicode folding), so a kept unknown key that folds to a known one
// is read by the CLI as that field. Such a key must not make aiq-rpc write
// a file that the CLI refuses, or one that the CLI reads differently.
func TestEncodeCaseVariantsOfKnownKeys(t *testing.T) {
	tests := []struct {
		name string
		data string
	}{
		{name: "top-level Metadata", data: `{"metadata": ` + validMetadata + `, "Metadata": {"data_source": ""}}`},
		{name: "top-level RAW_MESSAGES", data: `{"metadata": ` + validMetadata + `, "RAW_MESSAGES": "none"}`},
		{name: "top-level Messages", data: `{"metadata": ` + validMetadata + `, "Messages": [{"role": "system", "content": "x"}]}`},
		{name: "metadata Data_Source", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": "local-mysql", "database_type": "mysql", "Data_Source": ""}}`},
		{name: "metadata Created_At", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": "local-mysql", "database_type": "mysql", "Created_At": 5}}`},
		// U+017F (long s) folds to 's' under the CLI's matching.
		{name: "metadata data_ſource", data: `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": "local-mysql", "database_type": "mysql", "data_ſource": ""}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, err := sessionio.Decode([]byte(tt.data))
			require.NoError(t, err)
			out, err := sessionio.Encode(f)
			require.NoError(t, err)
			assert.NoError(t, sessiontest.CheckCLILoadRules(out), "written:\n%s", out)

			// And the CLI must read the fields aiq-rpc read.
			var cli sessiontest.CLIView
			if assert.NoError(t, json.Unmarshal(out, &cli)) {
				assert.Equal(t, "local-mysql", cli.Metadata.DataSource)
				assert.True(t, f.Metadata.CreatedAt.Equal(cli.Metadata.CreatedAt))
				assert.Len(t, cli.Messages, len(f.Messages))
			}
		})
	}
}

// Encode promises that every file it returns passes the CLI's rules, also
// for a File built in code rather than read by Decode: "unknown" keys that
// the CLI would read as known fields (in any case, or exactly when the known
// field is omitted because it is empty) must not reach the file.
func TestEncodeExtraKeysOfKnownFields(t *testing.T) {
	tests := []struct {
		name             string
		extra, metaExtra map[string]json.RawMessage
	}{
		{name: "top-level Metadata", extra: map[string]json.RawMessage{"Metadata": json.RawMessage(`{"data_source": ""}`)}},
		{name: "top-level RAW_MESSAGES", extra: map[string]json.RawMessage{"RAW_MESSAGES": json.RawMessage(`"x"`)}},
		{name: "top-level messages, Messages empty", extra: map[string]json.RawMessage{"messages": json.RawMessage(`[{"role": "system", "content": "x"}]`)}},
		{name: "top-level raw_messages, RawMessages empty", extra: map[string]json.RawMessage{"raw_messages": json.RawMessage(`{}`)}},
		{name: "metadata Data_Source", metaExtra: map[string]json.RawMessage{"Data_Source": json.RawMessage(`""`)}},
		{name: "metadata created_AT", metaExtra: map[string]json.RawMessage{"created_AT": json.RawMessage(`5`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &sessionio.File{
				Metadata: sessionio.Metadata{
					CreatedAt:    time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC),
					DataSource:   "local-mysql",
					DatabaseType: "mysql",
					Extra:        tt.metaExtra,
				},
				Extra: tt.extra,
			}
			out, err := sessionio.Encode(f)
			if err != nil {
				// Refusing is as good as dropping the key; writing it is not.
				assert.Contains(t, err.Error(), "encode session")
				return
			}
			assert.NoError(t, sessiontest.CheckCLILoadRules(out), "written:\n%s", out)
		})
	}
}

func TestEncodeRoundTripCLIFiles(t *testing.T) {
	for _, file := range cliFiles(t) {
		t.Run(file.name, func(t *testing.T) {
			first, _, err := sessionio.Decode(file.data)
			require.NoError(t, err)
			out, err := sessionio.Encode(first)
			require.NoError(t, err)

			// Even the CLI's free-mode file, which the CLI itself refuses,
			// passes once aiq-rpc has written it.
			assert.NoError(t, sessiontest.CheckCLILoadRules(out))

			second, warnings, err := sessionio.Decode(out)
			require.NoError(t, err)
			assert.Empty(t, warnings)
			assert.Equal(t, roundTripForm(t, first), roundTripForm(t, second))
			// The CLI files set last_updated and write JSON indented as
			// Encode does, so here even the undecoded JSON and the
			// metadata need no normalising apart from the time zone.
			assert.Equal(t, first.RawMessages, second.RawMessages)
			assert.Equal(t, first.Metadata.Extra, second.Metadata.Extra)

			// A second save changes nothing.
			again, err := sessionio.Encode(second)
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again))
		})
	}
}

// The CLI refuses its own free-mode files; that they fail its rules is why
// Encode writes placeholders.
func TestCLIFreeModeFileFailsCLIRules(t *testing.T) {
	err := sessiontest.CheckCLILoadRules(sessiontest.CLIFiles()["cli-free-mode.session.json"])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rule 2")
}

func TestEncodeNoDatabase(t *testing.T) {
	f := &sessionio.File{Metadata: sessionio.Metadata{CreatedAt: time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)}}
	out, err := sessionio.Encode(f)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))

	var cli sessiontest.CLIView
	require.NoError(t, json.Unmarshal(out, &cli))
	assert.Equal(t, sessionio.NoSourceName, cli.Metadata.DataSource)
	assert.Equal(t, sessionio.NoSourceType, cli.Metadata.DatabaseType)
	// An unset last_updated is written as created_at: the CLI needs none,
	// but a zero time would read as year 1 to anyone looking.
	assert.True(t, f.Metadata.CreatedAt.Equal(cli.Metadata.LastUpdated))

	got, _, err := sessionio.Decode(out)
	require.NoError(t, err)
	assert.Equal(t, "", got.Metadata.DataSource)
	assert.Equal(t, "", got.Metadata.DatabaseType)
}

func TestEncodeWritesUTC(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*60*60)
	newYork := time.FixedZone("EST", -5*60*60)
	f := &sessionio.File{
		Metadata: sessionio.Metadata{
			CreatedAt:    time.Date(2026, 2, 2, 15, 45, 51, 0, shanghai),
			LastUpdated:  time.Date(2026, 2, 2, 15, 46, 0, 500_000_000, shanghai),
			DataSource:   "local-mysql",
			DatabaseType: "mysql",
		},
		Messages: []sessionio.LegacyMessage{
			{Role: "user", Content: "hi", Timestamp: time.Date(2026, 2, 2, 2, 45, 52, 0, newYork)},
			{Role: "assistant", Content: "hello"}, // no timestamp: none written
		},
	}
	out, err := sessionio.Encode(f)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))

	text := string(out)
	assert.Contains(t, text, `"created_at": "2026-02-02T07:45:51Z"`)
	assert.Contains(t, text, `"last_updated": "2026-02-02T07:46:00.5Z"`)
	assert.Contains(t, text, `"timestamp": "2026-02-02T07:45:52Z"`)
	assert.NotContains(t, text, "+08:00")
	assert.NotContains(t, text, "-05:00")
	assert.Equal(t, 1, strings.Count(text, `"timestamp"`), "a zero timestamp is omitted")
	assert.True(t, strings.HasSuffix(text, "}\n"), "ends with a newline as the CLI's files do")
}

func TestEncodeOmitsEmptyLists(t *testing.T) {
	for name, f := range map[string]*sessionio.File{
		"nil":   {},
		"empty": {Messages: []sessionio.LegacyMessage{}, RawMessages: []json.RawMessage{}},
	} {
		t.Run(name, func(t *testing.T) {
			f.Metadata.CreatedAt = time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
			out, err := sessionio.Encode(f)
			require.NoError(t, err)
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(out, &top))
			assert.Equal(t, []string{"metadata"}, slices.Sorted(maps.Keys(top)))
		})
	}
}

// Keys of a newer aiq-rpc or a newer CLI must survive a save by this one.
func TestEncodeKeepsUnknownKeys(t *testing.T) {
	data := `{
  "metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": "s", "database_type": "mysql", "x_meta": {"b": [1, 2], "a": null}},
  "raw_messages": [{"role": "user", "content": "hi", "x_elem": true}],
  "x_top": "kept",
  "another": 1.50
}`
	f, warnings, err := sessionio.Decode([]byte(data))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	require.Equal(t, []string{"another", "x_top"}, slices.Sorted(maps.Keys(f.Extra)))
	require.Equal(t, []string{"x_meta"}, slices.Sorted(maps.Keys(f.Metadata.Extra)))

	out, err := sessionio.Encode(f)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))

	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &top))
	assert.JSONEq(t, `"kept"`, string(top["x_top"]))
	assert.Equal(t, "1.50", string(top["another"]), "a number is kept as written, not re-formatted")
	var md map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(top["metadata"], &md))
	assert.JSONEq(t, `{"b": [1, 2], "a": null}`, string(md["x_meta"]))
	var raw []json.RawMessage
	require.NoError(t, json.Unmarshal(top["raw_messages"], &raw))
	require.Len(t, raw, 1)
	assert.JSONEq(t, `{"role": "user", "content": "hi", "x_elem": true}`, string(raw[0]))
}

func TestEncodeRefusals(t *testing.T) {
	created := sessionio.Metadata{CreatedAt: time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)}
	good := sessionio.LegacyMessage{Role: "user", Content: "hi"}
	tests := []struct {
		name string
		file sessionio.File
		want string
	}{
		{name: "zero created_at", file: sessionio.File{Metadata: sessionio.Metadata{DataSource: "s", LastUpdated: created.CreatedAt}}, want: "metadata.created_at is not set"},
		{name: "empty content", file: sessionio.File{Metadata: created, Messages: []sessionio.LegacyMessage{good, {Role: "assistant"}}}, want: "messages[1]"},
		{name: "role system", file: sessionio.File{Metadata: created, Messages: []sessionio.LegacyMessage{good, good, {Role: "system", Content: "be brief"}}}, want: `messages[2]: the CLI refuses role "system"`},
		{name: "role empty", file: sessionio.File{Metadata: created, Messages: []sessionio.LegacyMessage{{Content: "hi"}}}, want: `messages[0]: the CLI refuses role ""`},
		{name: "role tool", file: sessionio.File{Metadata: created, Messages: []sessionio.LegacyMessage{{Role: "tool", Content: "{}"}}}, want: `role "tool"`},
		{name: "unknown key not JSON", file: sessionio.File{Metadata: created, Extra: map[string]json.RawMessage{"x": json.RawMessage("{")}}, want: `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := sessionio.Encode(&tt.file)
			require.Error(t, err)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), "encode session")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEncodeTooLarge(t *testing.T) {
	// One raw message whose content alone is over the limit.
	content, err := json.Marshal(map[string]string{"role": "user", "content": strings.Repeat("x", sessionio.MaxFileSize)})
	require.NoError(t, err)
	f := &sessionio.File{
		Metadata:    sessionio.Metadata{CreatedAt: time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)},
		RawMessages: []json.RawMessage{content},
	}
	out, err := sessionio.Encode(f)
	require.Error(t, err)
	assert.Nil(t, out)
	assert.ErrorIs(t, err, sessionio.ErrTooLarge)
	var sizeErr *sessionio.SizeError
	require.ErrorAs(t, err, &sizeErr)
	assert.Greater(t, sizeErr.Size, int64(len(content)), "the size of the whole file, which a caller trims by")
	assert.Contains(t, err.Error(), "10.0 MiB limit")
}

// SQL is full of <, > and &; escaping them as \u003c would make session
// files unreadable for the people who open them.
func TestEncodeDoesNotEscapeHTML(t *testing.T) {
	const sql = "SELECT * FROM t WHERE a < b && c > d"
	// Raw messages are kept as they are given: Encode must not escape
	// them, nor does it unescape one that came escaped.
	raw := json.RawMessage(`{"role": "assistant", "content": "` + sql + `"}`)
	escaped, err := json.Marshal(map[string]string{"role": "tool", "content": "<b>"})
	require.NoError(t, err)
	require.Contains(t, string(escaped), `\u003cb\u003e`)
	f := &sessionio.File{
		Metadata: sessionio.Metadata{
			CreatedAt:  time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC),
			DataSource: "a<b>&c",
			Extra:      map[string]json.RawMessage{"x_sql": json.RawMessage(`"` + sql + `"`)},
		},
		Messages:    []sessionio.LegacyMessage{{Role: "user", Content: sql}},
		RawMessages: []json.RawMessage{raw, escaped},
	}
	out, err := sessionio.Encode(f)
	require.NoError(t, err)
	text := string(out)
	assert.Equal(t, 3, strings.Count(text, sql), "legacy message, raw message and unknown key")
	assert.Contains(t, text, `"data_source": "a<b>&c"`)
	assert.NotContains(t, text, `\u0026`)
	assert.Equal(t, 1, strings.Count(text, `\u003c`), "only the raw message that came escaped")
	assert.Contains(t, text, `"content": "\u003cb\u003e"`)

	got, _, err := sessionio.Decode(out)
	require.NoError(t, err)
	assert.Equal(t, sql, got.Messages[0].Content)
	assert.JSONEq(t, string(raw), string(got.RawMessages[0]))
}

func TestSizeErrorMessage(t *testing.T) {
	tests := []struct {
		size int64
		want string
	}{
		{size: 4 << 30, want: "4096.0 MiB is over the 10.0 MiB limit"},
		{size: sessionio.MaxFileSize + 1<<19, want: "10.5 MiB is over the 10.0 MiB limit"},
	}
	for _, tt := range tests {
		err := &sessionio.SizeError{Size: tt.size}
		assert.Contains(t, err.Error(), tt.want)
		assert.ErrorIs(t, err, sessionio.ErrTooLarge)
		assert.NotErrorIs(t, err, sessionio.ErrInvalid)
	}
}

// A key that the CLI would read as a known one (encoding/json folds case)
// is dropped on load with a warning, so that a load and save round trip
// keeps what both programs read.
func TestDecodeDropsCaseVariantsOfKnownKeys(t *testing.T) {
	data := `{"metadata": {"created_at": "2026-02-02T07:45:51Z", "data_source": "db", "database_type": "mysql", "Data_Source": "", "note": 1},
		"Messages": [], "x_extra": true}`
	f, warnings, err := sessionio.Decode([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"metadata.Data_Source: another spelling of a known key, which the CLI would read in its place; dropped",
		"Messages: another spelling of a known key, which the CLI would read in its place; dropped",
	}, warnings)
	assert.Equal(t, "db", f.Metadata.DataSource)
	assert.Equal(t, []string{"note"}, slices.Collect(maps.Keys(f.Metadata.Extra)))
	assert.Equal(t, []string{"x_extra"}, slices.Collect(maps.Keys(f.Extra)))
}

// What is written after loading a file with odd metadata says what the
// session uses: every session without a source is "(no database)" of type
// "none", whatever type the file had next to it, and a named source whose
// type the file left out is of type "unknown" (package conversation puts the
// configured type there when the source is configured). Each passes the
// CLI's load rules.
func TestOddMetadataWritten(t *testing.T) {
	tests := []struct {
		name                 string
		metadata             string
		wantSource, wantType string
	}{
		{"no database_type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "demo"}`, "demo", sessionio.UnknownType},
		{"data_source null next to a type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": null, "database_type": "sqlite"}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"CLI free mode with a type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "", "database_type": "mysql"}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"CLI free mode", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "", "database_type": ""}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"placeholders", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "(no database)", "database_type": "none"}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"placeholder source, real type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "(no database)", "database_type": "postgresql"}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"source with a type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "shop", "database_type": "PostgreSQL"}`, "shop", "postgresql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, err := sessionio.Decode([]byte(`{"metadata": ` + tt.metadata + `}`))
			require.NoError(t, err)
			out, err := sessionio.Encode(f)
			require.NoError(t, err)
			require.NoError(t, sessiontest.CheckCLILoadRules(out))
			var cli sessiontest.CLIView
			require.NoError(t, json.Unmarshal(out, &cli))
			assert.Equal(t, tt.wantSource, cli.Metadata.DataSource)
			assert.Equal(t, tt.wantType, cli.Metadata.DatabaseType)
		})
	}
	t.Run("no metadata", func(t *testing.T) {
		f, _, err := sessionio.Decode([]byte(`{"messages": []}`))
		require.NoError(t, err)
		f.Metadata.CreatedAt = time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
		out, err := sessionio.Encode(f)
		require.NoError(t, err)
		require.NoError(t, sessiontest.CheckCLILoadRules(out))
		assert.Contains(t, string(out), `"data_source": "(no database)",`+"\n"+`    "database_type": "none"`)
	})
}

// A legacy message without a timestamp is written without one: aiq-rpc
// does not invent a time the message was not written at, and the CLI reads
// the missing key as it reads its own zero time.
func TestLegacyWithoutTimestampStaysWithout(t *testing.T) {
	data := `{"metadata": ` + validMetadata + `, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "timestamp": "2026-02-02T07:46:00Z"}]}`
	f, warnings, err := sessionio.Decode([]byte(data))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.True(t, f.Messages[0].Timestamp.IsZero())
	out, err := sessionio.Encode(f)
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))
	assert.Contains(t, string(out), "{\n      \"role\": \"user\",\n      \"content\": \"q\"\n    }")
	assert.Equal(t, 1, strings.Count(string(out), `"timestamp"`))
}
