package tools

import "strings"

// DryRunText says, in a sentence for a dialog, what the dry run of the
// request found: "This DELETE would remove 5,008 rows.", then why an
// allowance does not cover it, if one of its shape does not. It is "" when
// no dry run was tried.
func (req ConfirmRequest) DryRunText() string {
	text := req.dryRunText()
	if req.Beyond != "" {
		text = strings.TrimSpace(text + " " + req.Beyond)
	}
	return text
}

func (req ConfirmRequest) dryRunText() string {
	switch req.DryRun {
	case "ok":
		if req.AffectedRows == nil {
			return ""
		}
		return affectedText(req.SQL, *req.AffectedRows)
	case "failed":
		return "A trial run in a transaction that was rolled back failed: " + strings.TrimSuffix(req.DryRunReason, ".") + "."
	case "skipped":
		return "The rows it would change were not counted beforehand: " + strings.TrimSuffix(req.DryRunReason, ".") + "."
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
	return "This " + kind + " would " + verb + " " + groupThousands(n) + " " + rows + " (counted in a transaction that was rolled back)."
}

// MaskedLines says, a line each, what the request's tokens stand for:
// "<masked:email:3f2a…> is ann@example.com".
func (req ConfirmRequest) MaskedLines() []string {
	var lines []string
	for _, m := range req.Masked {
		lines = append(lines, shortToken(m.Token)+" is "+m.Value)
	}
	return lines
}

// shortToken shortens a token's hex part to four digits for a dialog,
// where the statement above shows it whole: <masked:email:3f2a…>.
func shortToken(tok string) string {
	i := strings.LastIndexByte(tok, ':')
	if i < 0 || len(tok)-i-2 <= 4 {
		return tok
	}
	return tok[:i+5] + "…>"
}
