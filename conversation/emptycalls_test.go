package conversation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadDropsEmptyToolCalls loads a file laid out as the CLI writes it
// whose assistant messages hold an empty tool_calls, with null and with
// empty content: the loaded history has no tool calls, and the save (which
// copies the bytes of what loading left as it was) never keeps the empty
// list, which a strict chat API refuses.
func TestLoadDropsEmptyToolCalls(t *testing.T) {
	file := `{
  "metadata": {
    "created_at": "2026-11-22T09:00:00Z",
    "last_updated": "2026-11-22T09:01:00Z",
    "data_source": "",
    "database_type": ""
  },
  "messages": [],
  "raw_messages": [
    {
      "role": "user",
      "content": "hello"
    },
    {
      "role": "assistant",
      "content": null,
      "tool_calls": []
    },
    {
      "role": "user",
      "content": "again"
    },
    {
      "role": "assistant",
      "content": "hi",
      "tool_calls": []
    }
  ]
}
`
	path := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o600))
	s, _, err := Load(path)
	require.NoError(t, err)
	for i, m := range s.History {
		assert.Nil(t, m.ToolCalls, "history[%d]", i)
	}
	data, _, err := s.Encode()
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"tool_calls"`)
	assert.Equal(t, 2, strings.Count(string(data), `"role": "assistant"`), "both answers kept:\n%s", data)
}
