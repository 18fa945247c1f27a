//go:build !aiqwip

package conversation

import (
	"context"
	"errors"
	"strings"

	"github.com/aiq/aiq-rpc/sessionio"
)

const DemoSourceName = "demo"

func ConfiguredSources(home sessionio.Home) ([]sessionio.Source, error) {
	sources, err := home.LoadSources()
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return []sessionio.Source{{Name: "demo", Type: "sqlite", Database: home.Dir + "/demo.sqlite"}}, nil
	}
	return sources, nil
}

func singleStatement(text, dialect string) bool {
	return !strings.Contains(strings.TrimRight(strings.TrimSpace(text), ";"), ";")
}

func dialectOf(sourceType string) string { return sourceType }

type SQLToolboxes struct{}

func (t *SQLToolboxes) Open(ctx context.Context, src sessionio.Source, confirm Confirmer) (Toolbox, error) {
	return nil, errors.New("no SQL tools yet")
}

func (t *SQLToolboxes) Close() error { return nil }
