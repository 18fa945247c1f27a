package conversation_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// A file over the 10 MiB aiq-rpc writes (the CLI writes them) opens with a
// warning that says how many of the oldest turns go; the file is left as
// it is until the session is saved, and then written under 10 MiB.
func TestLoadFileOverTheLimit(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.json")
	data := sessiontest.GenerateCLIFile(12 << 20)
	require.Greater(t, len(data), 11<<20)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	info, err := ws.Load(ctx, path)
	require.NoError(t, err)
	var warning string
	for _, w := range info.Warnings {
		if strings.Contains(w, "over the 10 MiB that aiq-rpc writes") {
			warning = w
		}
	}
	require.NotEmpty(t, warning, "warnings: %q", info.Warnings)
	assert.Regexp(t, `^the file is 1[12]\.\d MiB, over the 10 MiB that aiq-rpc writes: to fit, its \d+ oldest turn\(s\) are dropped; the file keeps them until the session is saved$`, warning)
	kept, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, data, kept, "loading changed the file")

	saved, err := ws.Save(ctx, info.SessionID, path)
	require.NoError(t, err)
	assert.Empty(t, saved.Notes, "the turns were dropped at load, and said so there")
	out, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(out), sessionio.MaxFileSize)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))

	// What is left is the newest turns, and loads without a warning.
	s, warnings, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, info.Turns, s.Turns())
	assert.Contains(t, s.History[len(s.History)-1].Content, "The top customer in week")
}

// A file over the ceiling is refused from its size, with what to do.
func TestLoadFileOverTheCeiling(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	path := filepath.Join(t.TempDir(), "huge.json")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	// Sparse: 70 MiB that would take long to read, and are never read.
	require.NoError(t, os.Truncate(path, 70<<20))
	_, err := ws.Load(context.Background(), path)
	require.ErrorIs(t, err, sessionio.ErrTooLarge)
	assert.Contains(t, err.Error(), "70.0 MiB is over the 64.0 MiB that aiq-rpc opens")
	assert.Contains(t, err.Error(), "start a new session")
}

// Invalid UTF-8 in a message is read as U+FFFD, as the CLI reads it, with
// a warning naming the message.
func TestLoadInvalidUTF8(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.json")
	data := "{\"metadata\": {\"created_at\": \"2026-02-02T07:45:51Z\", \"data_source\": \"db\", \"database_type\": \"sqlite\"}," +
		" \"raw_messages\": [{\"role\": \"system\", \"content\": \"p\"}, {\"role\": \"user\", \"content\": \"SELECT \xff\xfe name\"}," +
		" {\"role\": \"assistant\", \"content\": \"ok\"}]}"
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	info, err := ws.Load(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, []string{"raw_messages[1]: invalid UTF-8, read as U+FFFD (\uFFFD) as the AIQ CLI reads it"}, info.Warnings)
	h, err := ws.History(ctx, info.SessionID, true)
	require.NoError(t, err)
	assert.Equal(t, "SELECT \uFFFD\uFFFD name", h.Messages[0].Content)
}

// After loading a file with odd metadata, what is saved says what the
// session uses: a configured source with its configured type, whatever the
// file said; no source as "(no database)" of type "none".
func TestLoadOddMetadataSaves(t *testing.T) {
	tests := []struct {
		name                 string
		metadata             string
		wantSource, wantType string
	}{
		{"configured source without a type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "db"}`, "db", "sqlite"},
		{"configured source with a wrong type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "db", "database_type": "none"}`, "db", "sqlite"},
		{"source not configured, no type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "gone"}`, "gone", sessionio.UnknownType},
		{"null source next to a type", `{"created_at": "2026-02-02T07:45:51Z", "data_source": null, "database_type": "sqlite"}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"CLI free mode", `{"created_at": "2026-02-02T07:45:51Z", "data_source": "", "database_type": ""}`, sessionio.NoSourceName, sessionio.NoSourceType},
		{"no metadata", `null`, sessionio.NoSourceName, sessionio.NoSourceType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, _ := newWorkspace(t, nil, nil)
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "s.json")
			data := `{"metadata": ` + tt.metadata + `, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}`
			require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
			info, err := ws.Load(ctx, path)
			require.NoError(t, err)
			_, err = ws.Save(ctx, info.SessionID, path)
			require.NoError(t, err)
			out, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, sessiontest.CheckCLILoadRules(out))
			var cli sessiontest.CLIView
			require.NoError(t, json.Unmarshal(out, &cli))
			assert.Equal(t, tt.wantSource, cli.Metadata.DataSource)
			assert.Equal(t, tt.wantType, cli.Metadata.DatabaseType)

			// Legacy messages without a timestamp keep none, in the file
			// and in the history the editors get.
			assert.NotContains(t, string(out), `"timestamp"`)
			h, err := ws.History(ctx, info.SessionID, false)
			require.NoError(t, err)
			entry, err := json.Marshal(h.Turns[0])
			require.NoError(t, err)
			assert.JSONEq(t, `{"role": "user", "content": "q"}`, string(entry))
		})
	}
}

// session/save refuses a folder and a path in a missing folder, creating
// nothing.
func TestSaveRefusesFoldersAndMissingFolders(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	dir := t.TempDir()
	_, err = ws.Save(ctx, id, dir)
	require.ErrorIs(t, err, conversation.ErrInvalidRequest)
	assert.Contains(t, err.Error(), dir+" is a folder; give the path of a file, such as "+filepath.Join(dir, "session.json"))

	missing := filepath.Join(dir, "typo", "s.json")
	_, err = ws.Save(ctx, id, missing)
	require.ErrorIs(t, err, conversation.ErrInvalidRequest)
	assert.Contains(t, err.Error(), "the folder "+filepath.Dir(missing)+" does not exist")
	assert.NoDirExists(t, filepath.Dir(missing))
}

// A file over 10 MiB of one turn cannot lose a turn: its largest texts are
// cut, with a marker, until it fits, and the warning says so.
func TestLoadOneTurnOverTheLimit(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "one.json")
	answer := strings.Repeat(`"quoted" `, (11<<20)/9)
	data, err := json.Marshal(map[string]any{
		"metadata":     map[string]string{"created_at": "2026-01-02T03:04:05Z", "data_source": "db", "database_type": "sqlite"},
		"messages":     []map[string]string{{"role": "user", "content": "q"}, {"role": "assistant", "content": answer}},
		"raw_messages": []map[string]string{{"role": "system", "content": "p"}, {"role": "user", "content": "q"}, {"role": "assistant", "content": answer}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	info, err := ws.Load(ctx, path)
	require.NoError(t, err)
	require.Len(t, info.Warnings, 1)
	assert.Regexp(t, `^the file is 2\d\.\d MiB, over the 10 MiB that aiq-rpc writes: to fit, cut a \d+-byte message to \d+ bytes`, info.Warnings[0])
	_, err = ws.Save(ctx, info.SessionID, path)
	require.NoError(t, err)
	out, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(out), sessionio.MaxFileSize)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))
	assert.Contains(t, string(out), "[aiq-rpc: cut ")
}

// A 10 MiB file written the way the CLI writes them loads, saves and loads
// again as the same conversation, and what is saved passes the CLI's rules;
// saving it again writes the same bytes.
func TestRoundTripTenMiB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ten.json")
	data := sessiontest.GenerateCLIFile(sessionio.MaxFileSize - 4096)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	first, warnings, err := conversation.Load(path)
	require.NoError(t, err)
	require.Empty(t, warnings)
	out, notes, err := first.Encode()
	require.NoError(t, err)
	require.Empty(t, notes)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))
	require.NoError(t, os.WriteFile(path, out, 0o600))

	second, warnings, err := conversation.Load(path)
	require.NoError(t, err)
	require.Empty(t, warnings)
	assert.Equal(t, first.History, second.History)
	assert.Equal(t, first.Legacy, second.Legacy)
	assert.Equal(t, first.SystemPrompt, second.SystemPrompt)
	again, _, err := second.Encode()
	require.NoError(t, err)
	assert.True(t, string(out) == string(again), "a second save wrote other bytes")
}

// TestFirstSaveKeepsTheFileBytes: the first save of a loaded session copies
// the bytes of each element the load read as it stands, as later saves copy
// what the save before wrote, and encodes anew what loading changed: here
// an assistant message whose second call got no result, and an element
// laid out otherwise.
func TestFirstSaveKeepsTheFileBytes(t *testing.T) {
	elements := []string{
		`{"role":"system","content":"You are a SQL assistant."}`,
		`{"role":"user","content":"which <b>orders</b>?"}`,
		`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\":\"SELECT 1\"}"}},{"id":"c2","type":"function","function":{"name":"execute_sql","arguments":"{}"}}]}`,
		`{"role":"tool","content":"{\"rows\":[[1]]}","tool_call_id":"c1"}`,
		`{"role":"assistant","content":"One order & more."}`,
	}
	var raws []json.RawMessage
	for _, e := range elements {
		raws = append(raws, json.RawMessage(e))
	}
	file := map[string]any{
		"metadata":     map[string]string{"created_at": "2026-11-20T10:00:00Z", "last_updated": "2026-11-20T10:01:00Z", "data_source": "shop", "database_type": "postgresql"},
		"messages":     []map[string]string{{"role": "user", "content": "which <b>orders</b>?"}, {"role": "assistant", "content": "One order & more."}},
		"raw_messages": raws,
	}
	data, err := json.MarshalIndent(file, "", "  ")
	require.NoError(t, err)
	// The last element laid out on one line, as another writer might.
	last := "{\n      \"role\": \"assistant\",\n      \"content\": \"One order \\u0026 more.\"\n    }"
	require.Equal(t, 1, strings.Count(string(data), last))
	data = []byte(strings.Replace(string(data), last, `{"role": "assistant", "content": "One order \u0026 more."}`, 1))

	path := filepath.Join(t.TempDir(), "cli.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	s, warnings, err := conversation.Load(path)
	require.NoError(t, err)
	require.Len(t, warnings, 1, "the call without a result: %v", warnings)
	f, _, err := sessionio.Decode(data)
	require.NoError(t, err)
	out, _, err := s.Encode()
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))

	for i, kept := range []bool{true, true, false, true, false} {
		assert.Equal(t, kept, strings.Contains(string(out), string(f.RawMessages[i])), "element %d: %s", i, f.RawMessages[i])
	}
	assert.NotContains(t, string(out), `"c2"`, "the call loading dropped stays dropped")
	require.NoError(t, os.WriteFile(path, out, 0o600))
	back, _, err := conversation.Load(path)
	require.NoError(t, err)
	assert.Equal(t, s.History, back.History, "the file holds the history as loaded")
	assert.Equal(t, s.SystemPrompt, back.SystemPrompt)
}

// TestLoadCleansUpAfterAnswer: the collection after a large load starts
// the front end's way (conversation.WithAfterAnswer), once the load's
// answer is out; a small load leaves nothing to clean up.
func TestLoadCleansUpAfterAnswer(t *testing.T) {
	ws, _ := newWorkspace(t, nil, nil)
	dir := t.TempDir()
	for _, size := range []int{2 << 20, 64 << 10} {
		path := filepath.Join(dir, "session.json")
		require.NoError(t, os.WriteFile(path, sessiontest.GenerateCLIFile(size), 0o600))
		var left []func()
		ctx := conversation.WithAfterAnswer(context.Background(), func(f func()) { left = append(left, f) })
		info, err := ws.Load(ctx, path)
		require.NoError(t, err)
		if size > 1<<20 {
			require.Len(t, left, 1, "a large load leaves the collection for after its answer")
			left[0]() // the answer is out
		} else {
			assert.Empty(t, left, "a small load leaves nothing")
		}
		_, err = ws.CloseSession(context.Background(), info.SessionID)
		require.NoError(t, err)
	}
}
