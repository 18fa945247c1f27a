package conversation

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ModelCatalog is a Model whose endpoint serves other models too: it names
// its own, lists the endpoint's, and gives a Model for another of them.
type ModelCatalog interface {
	Model
	Name() string
	ListModels(ctx context.Context) ([]string, error)
	WithName(name string) Model
}

// ModelList is the models a session may use.
type ModelList struct {
	// Models are the endpoint's models, the configured one first.
	Models []string `json:"models"`
	// Configured is config.yaml's model; Current the session's, which is
	// Configured unless SetModel picked another.
	Configured string `json:"configured"`
	Current    string `json:"current"`
	// Warning says, in a sentence, why only the configured model is
	// listed: the endpoint's list could not be had.
	Warning string `json:"warning,omitempty"`
}

// Models lists the models of the configured endpoint for session id ("":
// none). An endpoint that does not list its models gives the configured
// one only, and a warning: never an error.
func (w *Workspace) Models(ctx context.Context, id string) (ModelList, error) {
	cat, err := w.catalog()
	if err != nil {
		return ModelList{}, err
	}
	list := ModelList{Configured: cat.Name(), Current: cat.Name()}
	if id != "" {
		o, err := w.get(id)
		if err != nil {
			return ModelList{}, err
		}
		o.mu.Lock()
		if o.model != "" {
			list.Current = o.model
		}
		o.mu.Unlock()
	}
	ids, err := cat.ListModels(ctx)
	if err != nil {
		list.Warning = sentence("The endpoint's list of models could not be had, so only the configured model is offered: " + err.Error())
	}
	list.Models = append([]string{cat.Name()}, slices.DeleteFunc(ids, func(s string) bool { return s == cat.Name() })...)
	return list, nil
}

// SetModel picks the model of session id among those the endpoint lists,
// for as long as the session is open; config.yaml is left as it is. An id
// the endpoint does not list is an ErrInvalidRequest that names those it
// does.
func (w *Workspace) SetModel(ctx context.Context, id, name string) (ModelList, error) {
	name = strings.TrimSpace(name)
	list, err := w.Models(ctx, id)
	if err != nil {
		return ModelList{}, err
	}
	if name == "" || !slices.Contains(list.Models, name) {
		return ModelList{}, fmt.Errorf("%w: the endpoint has no model %q; its models are: %s", ErrInvalidRequest, name, strings.Join(list.Models, ", "))
	}
	o, err := w.get(id)
	if err != nil {
		return ModelList{}, err
	}
	o.mu.Lock()
	o.model = name
	if name == list.Configured {
		o.model = ""
	}
	o.mu.Unlock()
	list.Current = name
	return list, nil
}

// catalog is the configured model as a catalog.
func (w *Workspace) catalog() (ModelCatalog, error) {
	m, err := w.cfg.Model()
	if err != nil {
		return nil, err
	}
	cat, ok := m.(ModelCatalog)
	if !ok {
		return nil, fmt.Errorf("%w: the configured model cannot list others", ErrInvalidRequest)
	}
	return cat, nil
}

// sessionModel is m, or the model the session picked with SetModel.
func (o *openSession) sessionModel(m Model) Model {
	o.mu.Lock()
	name := o.model
	o.mu.Unlock()
	if cat, ok := m.(ModelCatalog); ok && name != "" && name != cat.Name() {
		return cat.WithName(name)
	}
	return m
}
