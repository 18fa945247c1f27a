package conversation

import (
	"strings"
	"unicode"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// identWords splits an identifier or a text into lower-case words, stemmed,
// for ranking: at anything that is not a letter or a digit, at a change
// from lower to upper case ("InvoiceLines"), at the last capital of a
// run of them ("HTMLParser"), and between letters and digits
// ("gsod2014", "hg38"). Words of one letter are left out.
func identWords(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start >= 2 {
			w := strings.ToLower(string(rs[start:end]))
			if !unicode.IsDigit(rs[start]) {
				w = sqltext.Stem(w)
			}
			out = append(out, w)
		}
		start = -1
	}
	for i, r := range rs {
		letter, digit := unicode.IsLetter(r), unicode.IsDigit(r)
		if !letter && !digit {
			flush(i)
			continue
		}
		if start >= 0 {
			prev := rs[i-1]
			switch {
			case unicode.IsDigit(prev) != digit:
				flush(i)
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush(i)
			case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start && unicode.IsUpper(rs[i-2]):
				flush(i - 1)
				start = i - 1
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// splitCompound splits a word written without separators into words of
// the vocabulary, "pushnotification" into "push" and "notification",
// trying two parts and then three, each of at least three letters.
// It returns nil when no split uses only the vocabulary's words.
func splitCompound(w string, vocab map[string]bool) []string {
	if len(w) < 6 {
		return nil
	}
	known := func(s string) bool { return len(s) >= 3 && vocab[s] }
	for i := 3; i <= len(w)-3; i++ {
		if known(w[:i]) && known(sqltext.Stem(w[i:])) {
			return []string{w[:i], sqltext.Stem(w[i:])}
		}
	}
	for i := 3; i <= len(w)-6; i++ {
		if !known(w[:i]) {
			continue
		}
		for j := i + 3; j <= len(w)-3; j++ {
			if known(w[i:j]) && known(sqltext.Stem(w[j:])) {
				return []string{w[:i], w[i:j], sqltext.Stem(w[j:])}
			}
		}
	}
	return nil
}

// nameTokens returns the question's words as a name would be written,
// lower case: runs of letters, digits, '_', '$' and '.', without the quotes
// around them or a sentence's full stop.
func nameTokens(question string) []string {
	fields := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '.')
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.Trim(f, "."); f != "" {
			out = append(out, f)
		}
	}
	return out
}
