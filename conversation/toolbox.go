package conversation

import (
	"context"
	"fmt"
	"sync"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// ConfirmRequest asks the user whether a statement that writes, reaches
// outside the database or costs more than the source allows may run: what
// every front end shows in its dialog (tools.ConfirmRequest).
type ConfirmRequest = guard.ConfirmRequest

// MaskedValue is a masked token of a statement and its value as text, for
// the user only (tools.MaskedValue).
type MaskedValue = guard.MaskedValue

// Decision is the user's answer to a ConfirmRequest.
type Decision string

// The decisions.
const (
	AllowOnce   Decision = "allow_once"
	AllowAlways Decision = "allow_always"
	Reject      Decision = "reject"
)

// Confirmer asks the user to confirm a write. An error counts as a reject.
type Confirmer func(ctx context.Context, req ConfirmRequest) (Decision, error)

// Toolbox is the tools of one session's data source.
type Toolbox interface {
	Tools
	// Describe is the part of the system prompt about the database: its
	// engine, version and schema.
	Describe(ctx context.Context) string
}

// questionDescriber is a toolbox that fits what it says of the database
// to the question, as the schema card does for a schema too large to show
// whole.
type questionDescriber interface {
	DescribeFor(ctx context.Context, question string) string
}

// schemaRefresher is a toolbox that caches its database's schema.
type schemaRefresher interface {
	RefreshSchema()
}

// RefreshSchema makes the session's source read its schema anew: after
// the user changed it outside the conversation.
func (w *Workspace) RefreshSchema(ctx context.Context, id string) (Info, error) {
	o, err := w.get(id)
	if err != nil {
		return Info{}, err
	}
	box, err := w.toolbox(ctx, o)
	if err != nil {
		return Info{}, err
	}
	if r, ok := box.refresher(); ok {
		r.RefreshSchema()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.info(), nil
}

func (b *sessionToolbox) refresher() (schemaRefresher, bool) {
	if b == nil {
		return nil, false
	}
	r, ok := toolsAs[schemaRefresher](b.Toolbox)
	return r, ok
}

// OpenToolbox opens the tools of src for one session. The toolbox asks
// confirm before a write, for the whole of the session.
type OpenToolbox func(ctx context.Context, src sessionio.Source, confirm Confirmer) (Toolbox, error)

// sessionToolbox is a session's toolbox, with the confirmer of the turn
// that runs: the toolbox lives as long as the session, the editor request
// that can answer a confirmation only as long as a turn.
type sessionToolbox struct {
	Toolbox
	source  string
	dialect string
	// src is the source as sources.yaml gave it when the toolbox opened.
	src sessionio.Source

	mu      sync.Mutex
	confirm Confirmer
}

// scrubForModel hides the known values of the source's masked columns in
// text, when the toolbox knows them.
func (b *sessionToolbox) scrubForModel(ctx context.Context, text string, isJSON bool) string {
	if s, ok := toolsAs[modelScrubber](b.Toolbox); ok {
		return s.scrubForModel(ctx, text, isJSON)
	}
	return text
}

func (b *sessionToolbox) unwrapTools() Tools { return b.Toolbox }

func (b *sessionToolbox) masksForModel() bool {
	s, ok := toolsAs[modelScrubber](b.Toolbox)
	return ok && s.masksForModel()
}

func (b *sessionToolbox) setConfirmer(c Confirmer) {
	b.mu.Lock()
	b.confirm = c
	b.mu.Unlock()
}

func (b *sessionToolbox) ask(ctx context.Context, req ConfirmRequest) (Decision, error) {
	c, ok := ctx.Value(confirmerKey{}).(Confirmer)
	if !ok {
		b.mu.Lock()
		c = b.confirm
		b.mu.Unlock()
	}
	if c == nil {
		return Reject, nil
	}
	return c(ctx, req)
}

type confirmerKey struct{}

// withConfirmer returns a copy of ctx under which the session's toolbox
// asks c rather than the running turn's confirmer: for work beside a turn,
// such as an export, which must not take the turn's place.
func withConfirmer(ctx context.Context, c Confirmer) context.Context {
	return context.WithValue(ctx, confirmerKey{}, c)
}

// toolbox returns the session's toolbox, opening it on first use; nil when
// the session has no database.
//
// When sources.yaml changed the session's source (its access, label, cost
// limit, masks or connection), the session goes on with a toolbox on the
// source as it reads now: a read_only or a production label applies from
// the next statement. Its allowances go, as they were given under the old
// settings; its masker stays, so the tokens the model holds still work.
// When the source cannot be read now, the session keeps what it had: the
// turn's statements say what is wrong.
func (w *Workspace) toolbox(ctx context.Context, o *openSession) (*sessionToolbox, error) {
	o.mu.Lock()
	name, box := o.s.Source, o.box
	o.mu.Unlock()
	if name == "" {
		return nil, nil
	}
	src, err := w.lookupSource(name)
	switch {
	case box != nil && box.source == name && (err != nil || src.Equal(box.src)):
		return box, nil
	case err != nil:
		return nil, fmt.Errorf("%w; pick another data source for this session", err)
	}
	next := &sessionToolbox{source: name, dialect: dialectOf(src.Type), src: src}
	tb, err := w.cfg.OpenToolbox(ctx, src, next.ask)
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %w", ErrSourceUnavailable, name, err)
	}
	next.Toolbox = tb
	if box != nil && box.source == name {
		keepMasker(box.Toolbox, tb, src)
	}
	o.mu.Lock()
	o.box = next
	o.mu.Unlock()
	endToolbox(box)
	return next, nil
}

// ender is a toolbox that holds something until its session ends.
type ender interface{ end() }

// endToolbox tells a toolbox that its session no longer uses it.
func endToolbox(b *sessionToolbox) {
	if b == nil {
		return
	}
	if e, ok := toolsAs[ender](b.Toolbox); ok {
		e.end()
	}
}

// keepMasker makes to mask with from's masker, following src's masks: the
// session's key, and so its tokens, stay.
func keepMasker(from, to Toolbox, src sessionio.Source) {
	old, ok := toolsAs[maskSharer](from)
	next, ok2 := toolsAs[maskSharer](to)
	if !ok || !ok2 || old.masker() == nil {
		return
	}
	m := old.masker()
	m.SetSource(src)
	next.useMasker(m)
}
