package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAskStatementWithoutModel runs ask with no model and no terminal: a
// single statement the classifier knows gets its own verdict (a read
// runs, a write is refused for want of a terminal to confirm it), whatever
// comments lead it; prose still says that no model is configured.
func TestAskStatementWithoutModel(t *testing.T) {
	const noModel = "No model is configured: set llm.url"
	h := newHome(t)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	reads := map[string]string{
		"/* note */ SELECT 41 + 1 AS answer":                "answer",
		"-- x\nSELECT 'led by a line comment' AS c":         "led by a line comment",
		"PRAGMA user_version":                               "user_version",
		"WITH x AS (SELECT 7 AS seven) SELECT seven FROM x": "seven",
	}
	for sql, want := range reads {
		code, out, errOut := runCommand(t, sql, nil, "ask", "--home", h.Dir, "--source", "local", "-")
		assert.Equal(t, 0, code, "%q: %s", sql, errOut)
		assert.Contains(t, out, want, sql)
		assert.NotContains(t, errOut, noModel, sql)
	}
	refused := map[string]string{
		"/* note */ DELETE FROM t":          "This statement writes; run it from a terminal to confirm it.",
		"ATTACH DATABASE ':memory:' AS aux": "This statement reaches outside the database; run it from a terminal to confirm it.",
		"VACUUM INTO '" + copyPath + "'":    "This statement writes; run it from a terminal to confirm it.",
	}
	for sql, says := range refused {
		code, out, errOut := runCommand(t, sql, nil, "ask", "--home", h.Dir, "--source", "local", "-")
		assert.Equal(t, 0, code, "%q: %s", sql, errOut)
		assert.Contains(t, out, "\n"+says+"\n", sql)
		assert.NotContains(t, errOut, noModel, sql)
	}
	_, err := os.Stat(copyPath)
	assert.True(t, os.IsNotExist(err), "VACUUM INTO ran unconfirmed: %v", err)

	code, _, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "--source", "local", "how many tables are there")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, noModel)
}

// TestAskStatementWithoutSource: with sources configured but none chosen,
// a statement has no database to run on, and the error says so rather
// than that a statement runs without a model.
func TestAskStatementWithoutSource(t *testing.T) {
	h := newHome(t)
	code, out, errOut := runCommand(t, "", nil, "ask", "--home", h.Dir, "SELECT 1 AS one")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "aiq-rpc ask: No model is configured, and this session has no data source to run the statement on: choose one of the sources in "+
		filepath.Join(h.Dir, "config", "sources.yaml")+", or set llm.url, llm.model and llm.api_key in "+filepath.Join(h.Dir, "config", "config.yaml")+".\n", errOut)
}
