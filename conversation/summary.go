package conversation

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/tools"
)

// maxSummary bounds the legacy summary of a result: it is a reminder for
// the CLI's user, not the data.
const maxSummary = 500

// legacyAnswer is the assistant text of the legacy list, which the CLI
// refuses to load when empty: the final answer, or else a short summary of
// the last tool result.
func legacyAnswer(res Result) string {
	if answer := strings.TrimSpace(res.Answer); answer != "" {
		return res.Answer
	}
	if len(res.Outcomes) == 0 {
		return "(The model gave no answer.)"
	}
	return truncate(summarize(res.Outcomes[len(res.Outcomes)-1]), maxSummary)
}

// summarize describes a tool outcome: a schema tool's own one-line
// summary, or for a query the way the CLI does:
// "Query executed successfully. Returned 3 row(s) with columns: [id, name].
// Sample data: [1, alice], ...".
func summarize(o ToolOutcome) string {
	// The schema tools say what they found themselves.
	if r, ok := o.Result.(interface{ Summary() string }); ok && o.Err == nil {
		if text := r.Summary(); text != "" {
			return text
		}
	}
	if o.Result == nil && o.Err == nil {
		// A stored result, replayed.
		if text, ok := tools.StoredSummary(o.Call.Function.Name, o.Content); ok {
			return text
		}
	}
	var r struct {
		Status   string            `json:"status"`
		Error    string            `json:"error"`
		RowCount *int              `json:"row_count"`
		Columns  []string          `json:"columns"`
		Rows     []json.RawMessage `json:"rows"`
	}
	if json.Unmarshal([]byte(o.Content), &r) != nil {
		return fmt.Sprintf("The tool %s finished.", o.Call.Function.Name)
	}
	switch {
	case r.Status == "error":
		return "The query failed: " + r.Error
	case r.Status == "rejected":
		// The statement carries the user's sentence; Content the model's.
		if sql, ok := o.Result.(SQLResult); ok && sql.Statement.Error != "" {
			return sql.Statement.Error
		}
		return "The statement was not run: " + strings.TrimPrefix(r.Error, "not run: ")
	case r.Status == "cancelled":
		return "The statement was cancelled."
	case r.RowCount != nil && len(r.Columns) == 0 && r.Status == "success":
		return fmt.Sprintf("Statement executed successfully. %d row(s) affected.", *r.RowCount)
	case r.RowCount != nil && len(r.Columns) > 0:
		text := fmt.Sprintf("Query executed successfully. Returned %d row(s) with columns: [%s].",
			*r.RowCount, strings.Join(r.Columns, ", "))
		if sample := sampleRows(r.Rows, r.Columns, 3); sample != "" {
			text += " Sample data: " + sample
		}
		return text
	case r.Status == "success":
		return "Query executed successfully."
	}
	return fmt.Sprintf("The tool %s finished.", o.Call.Function.Name)
}

// sampleRows renders the first rows as [1, alice], [2, bob]. Rows may be
// arrays of values or objects keyed by column; values are shown as text,
// null as NULL.
func sampleRows(rows []json.RawMessage, columns []string, n int) string {
	var parts []string
	for _, row := range rows[:min(n, len(rows))] {
		var values []any
		if json.Unmarshal(row, &values) != nil {
			var obj map[string]any
			if json.Unmarshal(row, &obj) != nil {
				continue
			}
			for _, c := range columns {
				values = append(values, obj[c])
			}
		}
		cells := make([]string, len(values))
		for i, v := range values {
			cells[i] = cellText(v)
		}
		parts = append(parts, "["+strings.Join(cells, ", ")+"]")
	}
	return strings.Join(parts, ", ")
}

func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	default:
		data, _ := json.Marshal(v)
		return string(data)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
