package conversation_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// TestEncodeToWritesOverOnlyFreeBuffers goes through saves as the
// workspace makes them, the buffers a save frees handed to the next save
// of two sessions, a large one (whose kept bytes are copies, so its file
// is free once written) and a small one (whose kept bytes are its file's
// own, so the file before is freed by the next save): every file, each
// next save included (it copies the bytes it kept), is the session as it
// stands, and the buffers go round.
func TestEncodeToWritesOverOnlyFreeBuffers(t *testing.T) {
	large, small := fullSession(t, 250, 5<<10), fullSession(t, 3, 1<<10)
	var free [][]byte
	reused := 0
	for round := range 4 {
		for _, s := range []*conversation.Session{large, small, large, small} {
			q := fmt.Sprintf("question of round %d", round)
			s.History = append(s.History, conversation.Message{Role: conversation.RoleUser, Content: q},
				conversation.Message{Role: conversation.RoleAssistant, Content: "answer of " + q})
			s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: s.Created},
				sessionio.LegacyMessage{Role: "assistant", Content: "answer of " + q, Timestamp: s.Created})
			var buf []byte
			if len(free) > 0 {
				buf, free = free[len(free)-1], free[:len(free)-1]
			}
			e, err := s.EncodeTo(buf)
			require.NoError(t, err)
			want, _, err := anew(s).Encode()
			require.NoError(t, err)
			require.Equal(t, string(want), string(e.Data), "round %d: the file is the session", round)
			if cap(buf) >= len(e.Data) && &buf[:1][0] == &e.Data[:1][0] {
				reused++
			}
			if e.Freed != nil {
				free = append(free, e.Freed)
			}
			if e.DataFree {
				free = append(free, e.Data)
			}
		}
	}
	assert.Positive(t, reused, "a freed buffer was written in")
}

// anew is s as a session that has never been saved, to encode from the
// messages alone.
func anew(s *conversation.Session) *conversation.Session {
	c := conversation.NewSession(s.Source, s.DatabaseType, s.Created)
	c.Updated, c.SystemPrompt = s.Updated, s.SystemPrompt
	c.History, c.Legacy = slices.Clone(s.History), slices.Clone(s.Legacy)
	return c
}

// TestEncodeToCloneFreesOnce: a turn works on a copy of the session, which
// shares the bytes the last save kept; if the session itself is saved
// while the turn runs (session/save, the server's end), that save frees
// nothing, since the copy still reads the bytes, and the copy's own save,
// after the turn, hands the file on once.
func TestEncodeToCloneFreesOnce(t *testing.T) {
	s := fullSession(t, 3, 1<<10)
	first, err := s.EncodeTo(nil)
	require.NoError(t, err)
	require.False(t, first.DataFree, "a small session keeps the file's own bytes")
	work := s.Clone()
	during, err := s.EncodeTo(nil)
	require.NoError(t, err)
	assert.Zero(t, len(during.Freed), "the turn's copy still reads the first file")
	work.History = append(work.History, conversation.Message{Role: conversation.RoleUser, Content: "and then?"})
	after, err := work.EncodeTo(nil)
	require.NoError(t, err)
	require.NotNil(t, after.Freed)
	assert.Same(t, &first.Data[0], &after.Freed[0], "the copy hands the first file on")
	want, _, err := anew(work).Encode()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(after.Data))
}
