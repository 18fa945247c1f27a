package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// render is the text of a result for hosts that read only text: a
// Markdown table of its rows, or the error.
func render(tool string, m map[string]any) string {
	if status, _ := m["status"].(string); status != "" && status != "success" {
		msg, _ := m["error"].(string)
		if status == "error" {
			// An error before the run (the statement could not be read)
			// says so itself; "failed" would say it ran.
			if rest, ok := strings.CutPrefix(msg, "the statement was not run: "); ok {
				return "Not run: " + rest
			}
			return "The statement failed: " + msg
		}
		return "Not run (" + status + "): " + strings.TrimPrefix(msg, "not run: ")
	}
	switch tool {
	case "execute_sql", toolQuery:
		return renderRows(m)
	case "list_tables":
		return renderList(m, "tables", "table")
	case "describe_table":
		return renderCards(m)
	case "search_schema":
		return renderMatches(m)
	case "profile_column":
		return renderProfile(m)
	case "explain_sql":
		return renderPlan(m)
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

// renderCards writes each table's card as the chat's model reads it, in
// a block of its own, then the names that are no table.
func renderCards(m map[string]any) string {
	var b strings.Builder
	cards := stringList(m["tables"])
	if len(cards) > 0 {
		fmt.Fprintf(&b, "Source %v:\n", m["source"])
	}
	for _, card := range cards {
		b.WriteString("\n")
		fenced(&b, card)
	}
	for i, nf := range stringList(m["not_found"]) {
		if i == 0 && len(cards) > 0 {
			b.WriteString("\n")
		}
		b.WriteString(sentence(nf) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderMatches writes search_schema's tables as a Markdown table.
func renderMatches(m map[string]any) string {
	var b strings.Builder
	matches, _ := m["matches"].([]any)
	if len(matches) == 0 {
		fmt.Fprintf(&b, "No table or column of %v matches %q.", m["source"], m["query"])
		return b.String()
	}
	fmt.Fprintf(&b, "Tables of %v matching %q, best first:\n\n", m["source"], m["query"])
	var cells [][]string
	for _, v := range matches {
		mm, _ := v.(map[string]any)
		cells = append(cells, []string{cellText(mm["table"]), strings.Join(stringList(mm["matching_columns"]), ", "), cellText(mm["card"])})
	}
	table(&b, []string{"table", "matching columns", "card"}, cells)
	if more := rowCount(m["more"]); more > 0 {
		fmt.Fprintf(&b, "\n%d more table(s) match; search with more precise words.", more)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderProfile writes profile_column's counts, then its most common
// values as SQL writes them, so that the model copies the literal.
func renderProfile(m map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Column %v.%v of %v: %d row(s) read, %d distinct, %d null (%s).\n",
		m["table"], m["column"], m["source"], rowCount(m["rows_read"]), rowCount(m["distinct"]), rowCount(m["nulls"]), percent(m["null_fraction"]))
	_, hasMin := m["min"]
	_, hasMax := m["max"]
	if hasMin || hasMax {
		fmt.Fprintf(&b, "Min %s, max %s.\n", sqlLiteral(m["min"]), sqlLiteral(m["max"]))
	}
	if sample, _ := m["sample"].(string); sample != "" {
		b.WriteString("Sampled: " + sample + ".\n")
	}
	if note, _ := m["note"].(string); note != "" {
		b.WriteString("Note: " + note + "\n")
	}
	var cells [][]string
	top, _ := m["most_common"].([]any)
	for _, v := range top {
		vc, _ := v.(map[string]any)
		cells = append(cells, []string{sqlLiteral(vc["value"]), cellText(vc["count"])})
	}
	b.WriteString("\nMost common values:\n\n")
	table(&b, []string{"value", "count"}, cells)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderPlan writes explain_sql's estimates and full scans, then the plan
// text in a block; a statement refused or failed, the reason.
func renderPlan(m map[string]any) string {
	if refused, _ := m["refused"].(string); refused != "" {
		return sentence(refused)
	}
	if msg, _ := m["error"].(string); msg != "" {
		return "The plan failed: " + msg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan on %v, not run", m["source"])
	if rows, ok := m["estimated_rows"]; ok {
		fmt.Fprintf(&b, "; estimated rows %s", cellText(rows))
	}
	if cost, ok := m["cost"]; ok {
		fmt.Fprintf(&b, "; cost %s", cellText(cost))
	}
	b.WriteString(".\n")
	if scans, _ := m["full_scans"].([]any); len(scans) > 0 {
		var cells [][]string
		for _, v := range scans {
			fs, _ := v.(map[string]any)
			rows := "unknown"
			if n := rowCount(fs["rows"]); n >= 0 {
				rows = cellText(fs["rows"])
			}
			large := ""
			if l, _ := fs["large"].(bool); l {
				large = "yes"
			}
			cells = append(cells, []string{cellText(fs["table"]), rows, large})
		}
		b.WriteString("\nFull scans:\n\n")
		table(&b, []string{"table", "rows", "large"}, cells)
	}
	if plan, _ := m["plan"].(string); plan != "" {
		b.WriteString("\n")
		fenced(&b, plan)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// fenced writes text as a Markdown code block, with a fence longer than
// any run of backticks in it (MySQL quotes names with them).
func fenced(b *strings.Builder, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	b.WriteString(fence + "text\n" + strings.TrimSuffix(text, "\n") + "\n" + fence + "\n")
}

// sqlLiteral writes a value as SQL would: text quoted, NULL bare.
func sqlLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return cellText(v)
}

// percent writes a fraction such as 0.125 as "12.5%".
func percent(v any) string {
	var f float64
	switch v := v.(type) {
	case json.Number:
		f, _ = v.Float64()
	case float64:
		f = v
	}
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// sentence makes a message of the tools ("no table `x`; did you mean
// ...?") a sentence: capitalised, and ended.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
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
