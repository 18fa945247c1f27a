package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// maxCellWidth keeps one long value from pushing a table off the screen.
const maxCellWidth = 40

// writeStatement prints a statement's outcome as psql does: an aligned
// table and a row count.
func writeStatement(w io.Writer, st conversation.Statement) {
	defer writeWarnings(w, st.Warnings)
	switch st.Status {
	case "success":
	case "rejected":
		// The reason is the sentence written for the user.
		fmt.Fprintln(w, st.Error)
		return
	default:
		fmt.Fprintf(w, "%s: %s\n", st.Status, st.Error)
		return
	}
	if len(st.Columns) == 0 {
		fmt.Fprintf(w, "(%d row%s affected)\n", st.RowCount, plural(st.RowCount))
		return
	}
	cells := make([][]string, len(st.Rows))
	widths := make([]int, len(st.Columns))
	for i, c := range st.Columns {
		widths[i] = utf8.RuneCountInString(c)
	}
	right := numericColumns(st)
	for r, row := range st.Rows {
		cells[r] = make([]string, len(st.Columns))
		for i := range st.Columns {
			if i < len(row) {
				cells[r][i] = cellText(row[i])
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cells[r][i]))
		}
	}
	writeRow(w, st.Columns, widths, nil)
	seps := make([]string, len(widths))
	for i, n := range widths {
		seps[i] = strings.Repeat("-", n+2)
	}
	fmt.Fprintln(w, strings.Join(seps, "+"))
	for _, row := range cells {
		writeRow(w, row, widths, right)
	}
	more := ""
	if st.Truncated {
		more = fmt.Sprintf(", %d shown", len(st.Rows))
	}
	fmt.Fprintf(w, "(%d row%s%s)\n", st.RowCount, plural(st.RowCount), more)
}

// writeWarnings prints what the engine said about a statement besides
// its result, a line each, under it.
func writeWarnings(w io.Writer, warnings []string) {
	for _, m := range warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}

// numericColumns reports the columns that psql aligns to the right: those
// of a numeric type (a numeric's 31.70 comes as a string, to keep its
// scale) and, where the engine gave no type, those whose values are all
// numbers (or NULL). Rows hold numbers as json.Number: the client decodes
// with UseNumber, so that 123456789 is not 1.23456789e+08.
func numericColumns(st conversation.Statement) []bool {
	right := make([]bool, len(st.Columns))
	for i := range right {
		if i < len(st.ColumnTypes) && st.ColumnTypes[i] != "" {
			right[i] = engine.NumericType(st.ColumnTypes[i])
			continue
		}
		seen, others := false, false
		for _, row := range st.Rows {
			if i >= len(row) || row[i] == nil {
				continue
			}
			_, isNum := row[i].(json.Number)
			seen, others = seen || isNum, others || !isNum
		}
		right[i] = seen && !others
	}
	return right
}

// writeRow prints one row; right, when given, says which cells go to the
// right of their column.
func writeRow(w io.Writer, cells []string, widths []int, right []bool) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
		if right != nil && right[i] {
			parts[i] = " " + pad + c + " "
		} else {
			parts[i] = " " + c + pad + " "
		}
	}
	fmt.Fprintln(w, strings.TrimRight(strings.Join(parts, "|"), " "))
}

func cellText(v any) string {
	s := "NULL"
	if v != nil {
		s = strings.ReplaceAll(fmt.Sprint(v), "\n", " ")
	}
	if utf8.RuneCountInString(s) > maxCellWidth {
		s = string([]rune(s)[:maxCellWidth-1]) + "…"
	}
	return s
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
