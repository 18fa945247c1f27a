package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// maxTableRows bounds the rows of a result the editor is shown: enough to
// read, while the model and the session keep what they keep.
const maxTableRows = 20

// statementMarkdown shows a statement's outcome: the first rows as a
// Markdown table and the row count, or what was done, or the error.
func statementMarkdown(st conversation.Statement) string {
	out := statementOutcome(st)
	for _, w := range st.Warnings {
		out += "\n\nwarning: " + w
	}
	return out
}

// statementOutcome is statementMarkdown without the engine's warnings.
func statementOutcome(st conversation.Statement) string {
	switch {
	case st.Status != "success":
		return fmt.Sprintf("**%s:** %s", statusWord(st.Status), withoutStatus(st.Error, st.Status))
	case len(st.Columns) == 0:
		return fmt.Sprintf("%d row(s) affected.", st.RowCount)
	}
	var b strings.Builder
	row(&b, st.Columns)
	// A numeric column (its type says so) aligns to the right.
	b.WriteString("|")
	for i := range st.Columns {
		if i < len(st.ColumnTypes) && engine.NumericType(st.ColumnTypes[i]) {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	shown := st.Rows[:min(len(st.Rows), maxTableRows)]
	for _, r := range shown {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = cellText(v)
		}
		row(&b, cells)
	}
	b.WriteString("\n")
	switch {
	case int64(len(shown)) < st.RowCount:
		fmt.Fprintf(&b, "(%d rows, the first %d shown)", st.RowCount, len(shown))
	case st.RowCount == 1:
		b.WriteString("(1 row)")
	default:
		fmt.Fprintf(&b, "(%d rows)", st.RowCount)
	}
	return b.String()
}

// withoutStatus drops a leading "cancelled: " from an error that the
// word before it says already ("Cancelled: cancelled: ...").
func withoutStatus(msg, status string) string {
	if rest, ok := strings.CutPrefix(msg, status+": "); ok {
		return rest
	}
	return msg
}

func statusWord(status string) string {
	switch status {
	case "rejected":
		return "Not run"
	case "cancelled":
		return "Cancelled"
	}
	return "Error"
}

func row(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n")
}

// cellText is a value as a table cell: on one line, pipes escaped, long
// text shortened, null as NULL.
func cellText(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		s = v
	default:
		data, _ := json.Marshal(v)
		s = string(data)
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return inlineText(s)
}

// inlineText escapes what Markdown would read as markup in a value: a
// pipe that ends a cell, and HTML, which an editor must never be handed
// from a database or a model.
func inlineText(s string) string {
	return strings.NewReplacer("|", `\|`, "<", `\<`, ">", `\>`, "&", `\&`, "`", "\\`", "*", `\*`, "_", `\_`).Replace(s)
}

// chartMarkdown shows a chart as its title and a table of its data: ACP
// editors render Markdown, never HTML.
func chartMarkdown(data []byte) string {
	var c struct {
		ChartType string    `json:"chartType"`
		X         string    `json:"x"`
		Y         string    `json:"y"`
		Title     string    `json:"title"`
		Labels    []string  `json:"labels"`
		Values    []float64 `json:"values"`
		Points    []struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
		} `json:"points"`
	}
	if json.Unmarshal(data, &c) != nil || c.ChartType == "" {
		return "A chart."
	}
	title := c.Title
	if title == "" {
		title = c.Y + " by " + c.X
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s chart)\n\n", inlineText(title), inlineText(c.ChartType))
	row(&b, []string{cellText(c.X), cellText(c.Y)})
	b.WriteString("| --- | ---: |\n")
	for i, label := range c.Labels[:min(len(c.Labels), len(c.Values))] {
		row(&b, []string{cellText(label), cellText(c.Values[i])})
	}
	for _, p := range c.Points {
		row(&b, []string{cellText(p.X), cellText(p.Y)})
	}
	return b.String()
}
