package editor_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
)

// TestFailedAutosaveSaidOnce makes the autosave fail (the sessions folder
// is a file): the user is told once, in one window/showMessage sentence
// without the error chain, the turn's warnings do not repeat it, and the
// log has the detail. The next answer saves again.
func TestFailedAutosaveSaidOnce(t *testing.T) {
	var log bytes.Buffer
	model := &modeltest.Model{Steps: []modeltest.Step{{Text: []string{"Three."}}, {Text: []string{"Four."}}}}
	f := start(t, fixtureOptions{model: model, log: slog.New(slog.NewTextHandler(&log, nil))})
	dir := f.home.SessionsDir()
	require.NoError(t, os.WriteFile(dir, []byte("in the way"), 0o600))

	var ans conversation.Answer
	f.client.Result("chat/turn", map[string]any{"query": "how many?"}, &ans)
	assert.Equal(t, "Three.", ans.Answer)
	assert.Empty(t, ans.SavedTo, "the save failed")
	assert.Empty(t, ans.Warnings, "the failed save is not said again in the turn's warnings")

	shown := f.client.Notifications("window/showMessage")
	require.Len(t, shown, 1, "the failed save is said once")
	var p struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(shown[0].Params, &p))
	assert.Equal(t, 1, p.Type, "an error")
	assert.Equal(t, "The AIQ conversation could not be saved (not a directory); the next answer tries again.", p.Message)
	assert.NotContains(t, p.Message, dir, "the chain of what was being done is for the log")
	assert.Contains(t, log.String(), "autosave failed")
	assert.Contains(t, log.String(), "save new session in "+dir, "the log has the detail")

	require.NoError(t, os.Remove(dir))
	f.client.Result("chat/turn", map[string]any{"sessionId": ans.SessionID, "query": "and now?"}, &ans)
	assert.NotEmpty(t, ans.SavedTo, "the next answer saved the conversation")
	assert.Len(t, f.client.Notifications("window/showMessage"), 1, "no message after a save that worked")
	data, err := os.ReadFile(ans.SavedTo)
	require.NoError(t, err)
	assert.Contains(t, string(data), "how many?", "the first turn, not saved at the time, is in the file")
}
