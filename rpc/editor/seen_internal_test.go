package editor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// TestSeenWaitsForTheAnswer: a turn's seen file is written once its answer
// is out, not before; a session saved elsewhere in the meantime writes it
// beside the file the turn was saved to first, and beside the new file.
func TestSeenWaitsForTheAnswer(t *testing.T) {
	src := dbtest.SQLite(t)
	src.Name = "db"
	home := sessionio.Home{Dir: t.TempDir()}
	ws := conversation.NewWorkspace(conversation.Config{Home: home, DefaultSource: "db",
		Sources: func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil }})
	t.Cleanup(func() { ws.Close() })
	s := NewServer(ws, Options{Name: "aiq-rpc", Version: "test", Home: home})
	ctx := context.Background()
	info, err := ws.New(ctx, "db")
	require.NoError(t, err)
	ans, err := ws.RunSQL(ctx, info.SessionID, "SELECT 1 AS one", nil, func(conversation.Event) {})
	require.NoError(t, err)
	require.NotEmpty(t, ans.SavedTo)
	require.Len(t, ans.Statements, 1)

	var later []func()
	held := conversation.WithAfterAnswer(ctx, func(f func()) { later = append(later, f) })
	s.recordSeen(held, info.SessionID, ans)
	require.Len(t, later, 1, "the write is left for after the answer")
	assert.NoFileExists(t, sessionio.SeenPath(ans.SavedTo), "nothing is written before the answer is out")

	other := filepath.Join(t.TempDir(), "kept.json")
	saved, err := ws.Save(ctx, info.SessionID, other)
	require.NoError(t, err)
	s.seenSaved(ctx, saved)
	for _, path := range []string{ans.SavedTo, other} {
		seen, err := sessionio.ReadSeen(path)
		require.NoError(t, err, path)
		require.Len(t, seen, 1, "beside %s", path)
		assert.Equal(t, ans.Statements[0].CallID, seen[0].CallID)
	}
	later[0]() // the answer is out: nothing waits any more, and nothing breaks
}
