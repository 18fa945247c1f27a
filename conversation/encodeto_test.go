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
// workspace makes them, one buffer handed from save to save of two
// sessions, a large one (whose kept bytes are copies) and a small one
// (whose kept bytes are the file's own): a buffer is handed on only when
// the session that wrote it does not hold it, and every file, the next
// save of each session included (it copies the bytes it kept), is the
// session as it stands.
func TestEncodeToWritesOverOnlyFreeBuffers(t *testing.T) {
	large, small := fullSession(t, 250, 5<<10), fullSession(t, 3, 1<<10)
	var spare []byte
	handed := 0
	for round := range 4 {
		for _, s := range []*conversation.Session{large, small, large} {
			q := fmt.Sprintf("question of round %d", round)
			s.History = append(s.History, conversation.Message{Role: conversation.RoleUser, Content: q},
				conversation.Message{Role: conversation.RoleAssistant, Content: "answer of " + q})
			s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: s.Created},
				sessionio.LegacyMessage{Role: "assistant", Content: "answer of " + q, Timestamp: s.Created})
			given := spare
			data, _, err := s.EncodeTo(spare)
			require.NoError(t, err)
			spare = nil
			want, _, err := anew(s).Encode()
			require.NoError(t, err)
			require.Equal(t, string(want), string(data), "round %d: the file is the session", round)
			if len(given) > 0 && &given[:1][0] == &data[:1][0] {
				handed++
			}
			if !s.HoldsFile() {
				spare = data
			}
		}
	}
	assert.False(t, large.HoldsFile(), "a large session keeps copies")
	assert.True(t, small.HoldsFile(), "a small one keeps the file's own bytes")
	assert.Positive(t, handed, "a free buffer was written over")
}

// anew is s as a session that has never been saved, to encode from the
// messages alone.
func anew(s *conversation.Session) *conversation.Session {
	c := conversation.NewSession(s.Source, s.DatabaseType, s.Created)
	c.Updated, c.SystemPrompt = s.Updated, s.SystemPrompt
	c.History, c.Legacy = slices.Clone(s.History), slices.Clone(s.Legacy)
	return c
}
