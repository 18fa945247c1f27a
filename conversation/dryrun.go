package conversation

import (
	"strconv"
	"strings"
)

// DryRunText says, in a sentence for a dialog, what the dry run of the
// request found: "This DELETE would remove 5,008 rows." It is "" when no
// dry run was tried.
func (r ConfirmRequest) DryRunText() string {
	switch r.DryRun {
	case "ok":
		if r.AffectedRows == nil {
			return ""
		}
		return affectedText(r.SQL, *r.AffectedRows)
	case "failed":
		return "A trial run in a transaction that was rolled back failed: " + strings.TrimSuffix(r.DryRunReason, ".") + "."
	case "skipped":
		return "The rows it would change were not counted beforehand: " + strings.TrimSuffix(r.DryRunReason, ".") + "."
	}
	return ""
}

// affectedText says what a count of rows means for the statement's kind.
func affectedText(sql string, n int64) string {
	kind, verb := "statement", "change"
	fields := strings.Fields(sql)
	if len(fields) > 0 {
		switch strings.ToUpper(fields[0]) {
		case "DELETE":
			kind, verb = "DELETE", "remove"
		case "INSERT":
			kind, verb = "INSERT", "add"
		case "UPDATE":
			kind, verb = "UPDATE", "change"
		}
	}
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	return "This " + kind + " would " + verb + " " + groupDigits(n) + " " + rows + " (counted in a transaction that was rolled back)."
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
