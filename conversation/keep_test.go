package conversation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// keptBytes is the number of bytes the session keeps of its last save, and
// how many messages have none.
func keptBytes(s *Session) (n, without int) {
	for _, list := range [][]sessionio.EncodedMessage{s.saved.raw, s.saved.legacyData} {
		for _, b := range list {
			n += len(b)
			if b == nil {
				without++
			}
		}
	}
	return n, without
}

// Over minKept, a save keeps the bytes of its newest messages only, about
// a keptShare of the file, in a buffer of their own; what the next save
// writes is still what encoding the session afresh writes.
func TestSaveKeepsPartOfLargeSession(t *testing.T) {
	s := NewSession("shop", "postgresql", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s.SystemPrompt = "prompt"
	check := func(step string) []byte {
		t.Helper()
		got, _, err := s.Encode()
		require.NoError(t, err, step)
		want, err := sessionio.Encode(s.File())
		require.NoError(t, err, step)
		require.Equal(t, string(want), string(got), step)
		return got
	}
	answer := strings.Repeat("The orders of last week were paid by \"card\".\n", 200) // 9 KB, escaped
	for i := range 300 {
		addTurn(s, i, fmt.Sprintf("%d: %s", i, answer))
	}
	data := check("first save")
	kept, without := keptBytes(s)
	assert.LessOrEqual(t, kept, len(data)/keptShare, "the bytes kept")
	assert.Greater(t, kept, len(data)/keptShare-len(answer)-1024, "the bytes kept")
	assert.Positive(t, without)
	last := s.saved.raw[len(s.saved.raw)-1]
	require.NotNil(t, last, "the newest message's bytes are kept")
	assert.Equal(t, len(last), cap(last), "kept bytes are not a window on the file written")

	addTurn(s, 300, "answer 300")
	s.Trim(250)
	check("a turn, the oldest trimmed")
	s.History[len(s.History)-5].Content = "changed in place of a copy"
	check("a changed message")
	check("unchanged")
}

// A loaded session over minKept keeps part of the file's bytes, not the
// file, and its first save writes every message the file held, in a file
// the CLI loads.
func TestLoadKeepsPartOfLargeFile(t *testing.T) {
	data := sessiontest.GenerateCLIFile(3 << 20)
	path := filepath.Join(t.TempDir(), "large.session.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	s, _, err := Load(path)
	require.NoError(t, err)
	kept, without := keptBytes(s)
	assert.LessOrEqual(t, kept, max(len(data)/keptShare, minKept))
	assert.Positive(t, kept)
	assert.Positive(t, without)
	for i, b := range s.saved.raw {
		if b != nil {
			assert.Equal(t, len(b), cap(b), "raw[%d]: kept bytes are not a window on the file read", i)
		}
	}

	out, _, err := s.Encode()
	require.NoError(t, err)
	require.NoError(t, sessiontest.CheckCLILoadRules(out))
	f, warnings, err := sessionio.Decode(out)
	require.NoError(t, err)
	require.Empty(t, warnings)
	again, more := FromFile(f)
	require.Empty(t, more)
	assert.Equal(t, s.SystemPrompt, again.SystemPrompt)
	assert.Equal(t, s.History, again.History)
	assert.Equal(t, s.Legacy, again.Legacy)
	want, _ := FromFile(mustDecode(t, data))
	assert.Equal(t, want.History, again.History, "the history of the file read")
}

func mustDecode(t *testing.T, data []byte) *sessionio.File {
	t.Helper()
	f, _, err := sessionio.Decode(data)
	require.NoError(t, err)
	return f
}

// The legacy list's texts are the history's strings, not copies.
func TestLoadSharesTexts(t *testing.T) {
	s, _ := FromFile(mustDecode(t, sessiontest.GenerateCLIFile(64<<10)))
	require.NotEmpty(t, s.Legacy)
	history := map[*byte]bool{}
	for _, m := range s.History {
		history[unsafe.StringData(m.Content)] = true
	}
	for i, m := range s.Legacy {
		assert.True(t, history[unsafe.StringData(m.Content)], "messages[%d] is a copy of its text", i)
	}
}
