package conversation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFenceFoundByText: a result whose text is made anew for each request
// (the history scrubbed again for a masked source) keeps its fence, found
// by its text where its place is new; and two results of one request with
// the same call id and text get fences of their own.
func TestFenceFoundByText(t *testing.T) {
	f := newFences()
	request := func(content string) []Message {
		return []Message{{Role: RoleUser, Content: "how many?"}, {Role: RoleTool, ToolCallID: "c1", Content: content}}
	}
	text := `{"status":"success","rows":[[1]]}`
	first := f.fenced(request(text))[1].Content
	assert.Contains(t, first, text)
	for range 3 {
		assert.Equal(t, first, f.fenced(request(strings.Clone(text)))[1].Content, "the same text in other bytes")
	}
	assert.Equal(t, first, f.fenced(request(text))[1].Content, "the first bytes again")
	two := f.fenced([]Message{{Role: RoleTool, ToolCallID: "c1", Content: text}, {Role: RoleTool, ToolCallID: "c1", Content: text}})
	assert.Equal(t, first, two[0].Content)
	assert.NotEqual(t, two[0].Content, two[1].Content, "a second result with the same id and text has its own fence")
	again := f.fenced([]Message{{Role: RoleTool, ToolCallID: "c1", Content: text}, {Role: RoleTool, ToolCallID: "c1", Content: strings.Clone(text)}})
	assert.Equal(t, two[0].Content, again[0].Content)
	assert.Equal(t, two[1].Content, again[1].Content, "and keeps it")
}
