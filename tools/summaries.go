package tools

import (
	"encoding/json"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// StoredSummary returns the one-line summary of a schema tool's result
// from the JSON the model read, as a session file keeps it: for a
// conversation replayed, whose results are no longer values. ok is false
// for another tool, or content that is not such a result (an error).
func StoredSummary(tool, content string) (summary string, ok bool) {
	var status struct {
		Status *string `json:"status"`
	}
	if json.Unmarshal([]byte(content), &status) != nil || status.Status != nil {
		return "", false
	}
	decode := func(v any) bool { return json.Unmarshal([]byte(content), v) == nil }
	var nf NotFound
	if decode(&nf) && nf.Message != "" {
		return nf.Message, true
	}
	switch tool {
	case ToolListTables:
		var l TableList
		if decode(&l) {
			return l.Summary(), true
		}
	case ToolDescribeTable:
		var c TableCards
		if decode(&c) {
			return storedCardsSummary(c), true
		}
	case ToolSearchSchema:
		var m SchemaMatches
		if decode(&m) {
			names := make([]string, 0, len(m.Matches))
			for _, match := range m.Matches {
				names = append(names, match.Table)
			}
			return searchSummary(m.Query, len(m.Matches)+m.More, names), true
		}
	case ToolProfileColumn:
		var p ColumnProfile
		if decode(&p) && p.Table != "" {
			return profileSummary(&p), true
		}
	case ToolExplainSQL:
		var p Plan
		if decode(&p) {
			switch {
			case p.Refused != "":
				return p.Refused, true
			case p.Error != "":
				return "plan failed: " + engine.CutText(p.Error, 160), true
			}
			return planSummary(&p), true
		}
	}
	return "", false
}

// storedCardsSummary is describe_table's summary from its cards: each
// card's first line ("orders ~12k rows"), and the names not found.
func storedCardsSummary(c TableCards) string {
	var parts []string
	for _, card := range c.Tables {
		first, _, _ := strings.Cut(card, "\n")
		first, _, _ = strings.Cut(first, ` -- "`)
		parts = append(parts, strings.TrimPrefix(first, "table "))
	}
	for _, msg := range c.NotFound {
		name, _, _ := strings.Cut(strings.TrimPrefix(msg, "no table `"), "`")
		parts = append(parts, "no table "+name)
	}
	return strings.Join(parts, "; ")
}
