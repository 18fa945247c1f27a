package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// render is the text of a result for hosts that read only text: a
// Markdown table of its rows, or the error.
func render(tool string, m map[string]any) string {
	if status, _ := m["status"].(string); status != "" && status != "success" {
		msg, _ := m["error"].(string)
		if status == "error" {
			return "The statement failed: " + msg
		}
		return "Not run (" + status + "): " + strings.TrimPrefix(msg, "not run: ")
	}
	switch tool {
	case "execute_sql":
		return renderRows(m)
	case "list_tables":
		return renderList(m, "tables", "table")
	case "describe_table":
		return renderTables(m)
	}
	if _, ok := m["columns"].([]any); ok {
		if _, ok := m["rows"].([]any); ok {
			return renderRows(m) // a tool whose result is rows, as a statement's
		}
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	return "```json\n" + string(data) + "\n```"
}

func renderRows(m map[string]any) string {
	columns := stringList(m["columns"])
	rows, _ := m["rows"].([]any)
	count := rowCount(m["row_count"])
	var b strings.Builder
	if len(columns) == 0 {
		fmt.Fprintf(&b, "Statement executed successfully. %d row(s) affected.", count)
		return b.String()
	}
	var cells [][]string
	for _, r := range rows {
		row, _ := r.([]any)
		line := make([]string, len(row))
		for i, v := range row {
			line[i] = cellText(v)
		}
		cells = append(cells, line)
	}
	table(&b, columns, cells)
	fmt.Fprintf(&b, "\n%d row(s)", count)
	if t, _ := m["truncated"].(bool); t {
		fmt.Fprintf(&b, "; only the first %d are shown", len(rows))
	}
	b.WriteString(".")
	return b.String()
}

func renderList(m map[string]any, key, column string) string {
	var cells [][]string
	for _, v := range stringList(m[key]) {
		cells = append(cells, []string{v})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Source %v:\n\n", m["source"])
	table(&b, []string{column}, cells)
	return b.String()
}

func renderTables(m map[string]any) string {
	var b strings.Builder
	tables, _ := m["tables"].([]any)
	for i, t := range tables {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if schema, _ := tm["schema"].(string); schema != "" {
			name = schema + "." + name
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n\n", name)
		var cells [][]string
		cols, _ := tm["columns"].([]any)
		for _, c := range cols {
			cm, _ := c.(map[string]any)
			null := "NOT NULL"
			if n, _ := cm["nullable"].(bool); n {
				null = "NULL"
			}
			cells = append(cells, []string{cellText(cm["name"]), cellText(cm["type"]), null})
		}
		table(&b, []string{"column", "type", "null"}, cells)
	}
	return b.String()
}

// table writes a Markdown table.
func table(b *strings.Builder, header []string, rows [][]string) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + escapeCell(c) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|" + strings.Repeat(" --- |", len(header)) + "\n")
	for _, r := range rows {
		line(r)
	}
}

// escapeCell keeps a value inside its cell: a pipe or a line break would
// end it.
func escapeCell(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case json.Number:
		return v.String()
	case float64, bool:
		return fmt.Sprint(v)
	}
	data, _ := json.Marshal(v)
	return string(data)
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		out = append(out, cellText(x))
	}
	return out
}

func rowCount(v any) int64 {
	switch v := v.(type) {
	case json.Number:
		n, _ := v.Int64()
		return n
	case float64:
		return int64(v)
	}
	return 0
}
