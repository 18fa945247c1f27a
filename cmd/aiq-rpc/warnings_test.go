package main

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/conversation"
)

// TestWriteStatementWarnings: ask prints the engine's warnings under the
// statement's result, a line each.
func TestWriteStatementWarnings(t *testing.T) {
	var b strings.Builder
	writeStatement(&b, conversation.Statement{Status: "success", Columns: []string{"x"}, Rows: [][]any{{"ab"}}, RowCount: 1,
		Warnings: []string{"Truncated incorrect CHAR(2) value: 'abcdef'"}})
	if !strings.HasSuffix(b.String(), "(1 row)\nwarning: Truncated incorrect CHAR(2) value: 'abcdef'\n") {
		t.Errorf("got %q", b.String())
	}
}
