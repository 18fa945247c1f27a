package acp

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestStatementMarkdownAligns: a numeric column, by its type, aligns to the
// right, its exact decimals as the engine wrote them; a date stays a date.
func TestStatementMarkdownAligns(t *testing.T) {
	st := conversation.Statement{Status: "success", RowCount: 1, Columns: []string{"day", "total"},
		ColumnTypes: []string{"date", "numeric"}, Rows: [][]any{{"2024-01-02", "31.70"}}}
	got := statementMarkdown(st)
	for _, want := range []string{"| --- | ---: |\n", "| 2024-01-02 | 31.70 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("the table\n%s\nlacks %q", got, want)
		}
	}
}
