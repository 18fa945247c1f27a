package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
)

// ModelsTimeout bounds the whole of a request for the list of models.
const ModelsTimeout = 10 * time.Second

// ErrUnreachable is the error of a list of models that the endpoint did
// not answer at all: refused, unknown host, timed out.
var ErrUnreachable = errors.New("the endpoint did not answer")

// maxModelsBody bounds the list of models read: a few thousand ids.
const maxModelsBody = 4 << 20

// Name is the model's name, as requests send it.
func (m *Model) Name() string { return m.model }

// WithName returns a Model for another model of the same endpoint, which
// shares m's connections.
func (m *Model) WithName(name string) conversation.Model {
	c := *m
	c.model = name
	return &c
}

// ListModels asks the endpoint's GET /models, which OpenAI, Ollama, vLLM,
// llama.cpp and LM Studio serve, for the ids of its models, sorted. It
// fails, in a sentence, when the endpoint does not answer within
// ModelsTimeout or answers anything but a list of models.
func (m *Model) ListModels(ctx context.Context) ([]string, error) {
	if _, ok := ctx.Deadline(); ok {
		// The caller's bound, which doctor reports as its own.
		return m.listModels(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, ModelsTimeout)
	defer cancel()
	return m.listModels(ctx)
}

func (m *Model) listModels(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.base+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("list the models: %w", err)
	}
	if key := m.secret.Reveal(); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := m.plain.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: it did not list its models in time", ErrUnreachable)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return nil, fmt.Errorf("%w: %s", ErrUnreachable, detail(err.Error(), m.secret))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the endpoint answered the list of models with HTTP %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody+1))
	if err != nil {
		return nil, errors.New("the list of models was cut off: " + detail(err.Error(), m.secret))
	}
	return parseModels(data)
}

// parseModels reads OpenAI's list of models: {"data":[{"id":...}]}. Some
// servers give the list bare, or name a model by "name" or "model".
func parseModels(data []byte) ([]string, error) {
	if len(data) > maxModelsBody {
		return nil, errors.New("the list of models is too long")
	}
	var wrapped struct {
		Data   []json.RawMessage `json:"data"`
		Models []json.RawMessage `json:"models"`
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &wrapped); err == nil {
		items = append(wrapped.Data, wrapped.Models...)
	} else if err := json.Unmarshal(data, &items); err != nil {
		return nil, errors.New("the endpoint's list of models is not JSON of the OpenAI shape")
	}
	var ids []string
	for _, it := range items {
		var m struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Model string `json:"model"`
		}
		if json.Unmarshal(it, &m) != nil {
			continue
		}
		id := strings.TrimSpace(cmpOr(m.ID, m.Model, m.Name))
		if id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("the endpoint's list of models names no model")
	}
	slices.Sort(ids)
	return ids, nil
}

func cmpOr(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
