package guard

import (
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard/scrub"
)

// NewScrubber builds the scrubber of a source's masked columns' values,
// for engine.DB.MaskedValues to keep; nil when none is long enough to look
// for.
func NewScrubber(values []engine.MaskedValue) any {
	vs := make([]scrub.Value, len(values))
	for i, v := range values {
		vs[i] = scrub.Value{Column: v.Column, Text: v.Text, Raw: v.Raw}
	}
	if set := scrub.New(vs); set != nil {
		return set
	}
	return nil
}

// Scrub returns text, which is on its way to the model, with every value
// the scrubber (from NewScrubber) knows replaced by its token in this
// session: the layer of masking that reads no SQL. isJSON says that text
// is JSON and must stay so. No scrubber, or a masker that masks nothing,
// leaves text as it is.
func (m *Masker) Scrub(scrubber any, text string, isJSON bool) string {
	set, ok := scrubber.(*scrub.Set)
	if !ok || set == nil || !m.active() {
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
