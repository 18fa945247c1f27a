package main

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestWriteStatementTypes: the terminal aligns a numeric column to the
// right by its type, its decimal as the engine wrote it (31.70, a
// string), and a text of digits to the left.
func TestWriteStatementTypes(t *testing.T) {
	var b strings.Builder
	writeStatement(&b, conversation.Statement{Status: "success", RowCount: 2, Columns: []string{"code", "total", "day"},
		ColumnTypes: []string{"text", "numeric", "date"}, Rows: [][]any{{"7", "31.70", "2024-01-02"}, {"12", "1234.50", nil}}})
	want := " code | total   | day\n" +
		"------+---------+------------\n" +
		" 7    |   31.70 | 2024-01-02\n" +
		" 12   | 1234.50 | NULL\n" +
		"(2 rows)\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
