package conversation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUserText(t *testing.T) {
	sel := &Selection{Text: "SELECT 1;\n", LanguageID: "sql"}
	cases := []struct {
		name string
		q    Question
		want string
	}{
		{"query only", Question{Query: "  why?  "}, "why?"},
		{"selection alone is the question", Question{Selection: sel}, "SELECT 1;\n"},
		{"query and selection", Question{Query: "what is this?", Selection: sel}, "what is this?\n\n```sql\nSELECT 1;\n```"},
		{"language from the URI", Question{Query: "q", Attached: []Selection{{Text: "x = 1", URI: "file:///src/a%20b.py"}}},
			"q\n\n```python\nx = 1\n```"},
		{"several attached, blank ones skipped", Question{Query: "q", Selection: sel, Attached: []Selection{
			{Text: "  ", URI: "file:///x.sql"}, {Text: "a,b", URI: "/data/t.CSV"}, {Text: "?", URI: "untitled:1"}}},
			"q\n\n```sql\nSELECT 1;\n```\n\n```csv\na,b\n```\n\n```\n?\n```"},
		{"attached alone are fenced when several", Question{Attached: []Selection{{Text: "a", URI: "x.go"}, {Text: "b", URI: "y.go"}}},
			"```go\na\n```\n\n```go\nb\n```"},
		{"fence longer than the text's", Question{Query: "q", Attached: []Selection{{Text: "```sql\nx\n```", URI: "r.md"}}},
			"q\n\n````markdown\n```sql\nx\n```\n````"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.q.userText())
		})
	}
}
