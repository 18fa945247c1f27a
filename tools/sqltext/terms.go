package sqltext

import (
	"strings"
	"unicode"
)

// Terms splits text into lower-case words, stemmed, for matching a
// question against names and comments: "InvoiceLines", "invoice_lines"
// and "invoice lines" all give "invoice" and "line". Words of fewer than
// two letters are left out.
func Terms(text string) []string {
	var terms []string
	var word []rune
	flush := func() {
		if len(word) >= 2 {
			terms = append(terms, Stem(string(word)))
		}
		word = word[:0]
	}
	var prev rune
	for _, r := range text {
		switch {
		case unicode.IsUpper(r):
			// A capital after a lower-case letter starts a word: camelCase.
			if unicode.IsLower(prev) {
				flush()
			}
			word = append(word, unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return terms
}

// Stem reduces an English word, in lower case, to a crude stem that its
// plural shares: "singers" and "singer", "categories" and "category",
// "boxes" and "box". It is no linguist; it only has to make a question's
// words meet a schema's names.
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") ||
		strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:n-1]
	}
	return w
}
