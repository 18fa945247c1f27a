package guard

import "github.com/aiq/aiq-rpc/tools/guard/scrub"

// Scrub returns text, which is on its way to the model, with every value
// of set in it replaced by its token in this session: the layer of
// masking that reads no SQL. isJSON says that text is JSON and must stay
// so. A nil set, or a masker that masks nothing, leaves text as it is.
func (m *Masker) Scrub(set *scrub.Set, text string, isJSON bool) string {
	if set == nil || !m.active() {
		return text
	}
	token := func(i int) string {
		v := set.Value(i)
		t, _ := m.Token(v.Column, v.Raw).(string)
		return t
	}
	if isJSON {
		return set.ReplaceJSON(text, token, m.issued)
	}
	return set.ReplaceText(text, token, m.issued)
}

// issued reports whether tok is a token m issued.
func (m *Masker) issued(tok string) bool {
	sm := TokenPattern.FindStringSubmatch(tok)
	if sm == nil {
		return false
	}
	_, ok := m.lookup(sm[1])
	return ok
}

// Active reports whether m masks any column.
func (m *Masker) Active() bool { return m.active() }
