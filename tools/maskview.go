package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// maskProfile replaces the values of a masked column's profile by tokens:
// min, max and the most common values. Counts pass through.
func maskProfile(m *guard.Masker, p *ColumnProfile) {
	if !m.Masks(p.Column) {
		return
	}
	p.Min, p.Max = m.Token(p.Column, p.Min), m.Token(p.Column, p.Max)
	for i := range p.Top {
		p.Top[i].Value = m.Token(p.Column, p.Top[i].Value)
	}
	p.Note = strings.TrimSpace(p.Note + " The values of this column are masked: each is a token that stands for one value.")
	p.summary = profileSummary(p)
}

// bindTokens prepares a statement that holds masked tokens: one whose
// tokens are whole string literals runs with their values bound (the
// returned ctx), a write as a read, and its dry run too, after the same
// confirmation, which shows the statement as written and, to the user
// only, the tokens' values (ConfirmRequest.Masked); anything else is
// refused with a result that says why.
func (s *Set) bindTokens(ctx context.Context, sql string, classErr error) (context.Context, *engine.StatementResult) {
	if classErr != nil {
		return ctx, nil // Run refuses it with the classifier's reason
	}
	query, args, err := s.mask.Bind(sql, s.db.Dialect())
	if err != nil {
		return ctx, s.refused(sql, engine.StatusRejected, "The statement's masked token could not be bound: "+err.Error()+".", "not run: "+err.Error())
	}
	// bind refused every token that is not a whole string literal, so
	// the tokens, in order, are those of args.
	tokens := guard.TokenPattern.FindAllString(sql, -1)
	return engine.WithBound(ctx, engine.Bound{SQL: sql, Query: query, Args: args, Tokens: tokens}), nil
}

// Masker returns the Set's masker, to share with other Sets of the same
// source (UseMasker).
func (s *Set) Masker() *guard.Masker { return s.mask }

// UseMasker makes the Set mask with m instead of its own masker, so that
// its tokens are those of m's session: call it before the Set runs a
// tool. A nil m is ignored.
func (s *Set) UseMasker(m *guard.Masker) {
	if m != nil {
		s.mask = m
	}
}

// ModelView is what the model reads of r: its ModelView, with the values
// of the source's masked columns as tokens.
func (s *Set) ModelView(r *engine.StatementResult) any { return s.mask.ModelView(r) }

// maskChart hides a chart's masked values, which the model reads too: the
// labels of a masked x become tokens; a masked y, or a masked x of a
// scatter chart, whose numbers would show, is refused. maskX and maskY
// say whether the result masks the chart's columns.
func maskChart(m *guard.Masker, c *Chart, maskX, maskY bool) (*Chart, error) {
	if maskY || c.ChartType == "scatter" && maskX {
		return nil, fmt.Errorf("render_chart cannot plot the masked column's numbers; chart a count or another column instead")
	}
	if maskX {
		for i, l := range c.Labels {
			c.Labels[i] = m.Token(c.X, l).(string)
		}
	}
	return c, nil
}
