package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// TestAskFailsBeforeTurnKeepsFile runs ask -s on a CLI file whose source
// is not configured here, without a model: a statement and a question
// both fail before a turn, and the file stays byte for byte as it was.
func TestAskFailsBeforeTurnKeepsFile(t *testing.T) {
	files := sessiontest.CLIFiles()
	data, ok := files["cli-db-mode.session.json"]
	require.True(t, ok, "the CLI's db-mode session is among the test files")
	for _, question := range []string{"SELECT 1", "how many orders are there?"} {
		t.Run(question, func(t *testing.T) {
			h := newHome(t)
			path := filepath.Join(h.sessionsDir(), "cli.json")
			require.NoError(t, os.MkdirAll(h.sessionsDir(), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o600))
			code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "-s", path, question)
			assert.Equal(t, 1, code, out)
			assert.Contains(t, errOut, "No model is configured")
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(after), "the file changed although no turn ran")
			assert.Len(t, h.sessionFiles(t), 1, "no other file")
		})
	}
}
