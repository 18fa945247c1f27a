package guard

import (
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
)

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
		return affectedText(req.SQL, *req.AffectedRows, req.Cascade)
	case "failed":
		return "A trial run in a transaction that was rolled back failed: " + strings.TrimSuffix(req.DryRunReason, ".") + "."
	case "skipped":
		return "The rows it would change were not counted beforehand: " + strings.TrimSuffix(req.DryRunReason, ".") + "."
	}
	return ""
}

// affectedText says what a count of rows means for the statement's kind,
// and what the statement does to other tables in cascade: "This DELETE
// would remove 1 row of customers and 4 rows of orders (cascade)".
func affectedText(sql string, n int64, cascade []engine.TableChange) string {
	kind, verb, target := "statement", "change", ""
	fields := strings.Fields(sql)
	if len(fields) > 0 {
		at := 1 // where the target's name is, in a plain statement
		switch strings.ToUpper(fields[0]) {
		case "DELETE":
			kind, verb, at = "DELETE", "remove", 2
		case "INSERT":
			kind, verb, at = "INSERT", "add", 2
		case "UPDATE":
			kind, verb = "UPDATE", "change"
		}
		if len(cascade) > 0 && at < len(fields) {
			target = " of " + strings.TrimRight(fields[at], "(;")
		}
	}
	text := "This " + kind + " would " + verb + " " + rowsText(n) + target
	var parts []string
	for _, c := range cascade {
		for _, p := range []struct {
			n    int64
			verb string
		}{{c.Removed, "remove"}, {c.Changed, "change"}, {c.Added, "add"}} {
			if p.n == 0 {
				continue
			}
			part := rowsText(p.n) + " of " + c.Table
			if p.verb != verb {
				part = p.verb + " " + part
			}
			parts = append(parts, part)
		}
	}
	switch len(parts) {
	case 0:
	case 1:
		text += " and " + parts[0] + " (cascade)"
	default:
		text += ", " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " (cascade)"
	}
	return text + " (counted in a transaction that was rolled back)."
}

// rowsText is "1 row" or "5,008 rows".
func rowsText(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return GroupThousands(n) + " rows"
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

// GroupThousands writes n with commas between groups of three digits.
func GroupThousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
