package tools

import (
	"context"

	"github.com/aiq/aiq-rpc/tools/guard"
)

// Scrub returns text, which is on its way to the model, with every known
// value of a masked column in it replaced by its token: the layer of
// masking that reads no SQL. isJSON says that text is JSON and must stay
// so. It returns text as it is when the source masks nothing.
func (s *Set) Scrub(ctx context.Context, text string, isJSON bool) string {
	if !s.mask.Active() {
		return text
	}
	return s.mask.Scrub(s.db.MaskedValues(ctx, guard.NewScrubber), text, isJSON)
}
