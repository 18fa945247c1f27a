package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/sessionio"
)

// listSources answers list_sources: never a password or a user name.
func (s *Server) listSources() (*sdk.CallToolResult, error) {
	type entry struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		Label   string `json:"label"`
		Default bool   `json:"default"`
	}
	out := map[string]any{}
	list := []entry{}
	sources, err := s.ws.Sources()
	if err != nil {
		return toolError("The data sources could not be read: " + err.Error()), nil
	}
	def, defErr := s.ws.CallSource("")
	var cells [][]string
	for _, src := range sources {
		e := entry{Name: src.Name, Type: src.Type, Label: label(src), Default: defErr == nil && def.Name == src.Name}
		list = append(list, e)
		mark := ""
		if e.Default {
			mark = "yes"
		}
		cells = append(cells, []string{e.Name, e.Type, e.Label, mark})
	}
	out["sources"] = list
	var b strings.Builder
	table(&b, []string{"name", "type", "label", "default"}, cells)
	if defErr != nil {
		b.WriteString("\nNo source is the default: name one as the source argument.")
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}, StructuredContent: out}, nil
}

// label says where a source is, without its credentials.
func label(src sessionio.Source) string {
	if src.Type == sessionio.TypeSQLite {
		return filepath.Base(src.Database)
	}
	host := src.Host
	if src.Port != 0 {
		host += ":" + strconv.Itoa(src.Port)
	}
	if src.Database != "" {
		host += "/" + src.Database
	}
	return host
}

// resources keeps one schema resource per configured source, and the
// list in step with sources.yaml.
type resources struct {
	s *Server

	mu    sync.Mutex
	uris  []string
	stamp string // sources.yaml's size and time when last read
}

// schemaURI is the resource of a source's schema card.
func schemaURI(name string) string {
	return "aiq://sources/" + url.PathEscape(name) + "/schema"
}

// sync makes the server's resources those of the configured sources.
// Adding and removing them announces notifications/resources/list_changed.
func (r *resources) sync(ctx context.Context) {
	// The file's stamp is taken before it is read: a change that lands
	// after is seen by the next look, even one before watch starts.
	stamp := r.fileStamp()
	sources, err := r.s.ws.Sources()
	if err != nil {
		r.s.log.Warn("mcp: the sources for the resources could not be read", "err", err)
		sources = nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stamp = stamp
	var uris []string
	for _, src := range sources {
		uri := schemaURI(src.Name)
		uris = append(uris, uri)
		r.s.sdk.AddResource(&sdk.Resource{
			URI: uri, Name: src.Name + "-schema", Title: "Schema of " + src.Name,
			Description: fmt.Sprintf("The %s database %q: its engine, version and tables with their columns, as aiq's chat gives its model.", src.Type, src.Name),
			MIMEType:    "text/markdown",
		}, r.read(src.Name))
	}
	var gone []string
	for _, u := range r.uris {
		if !slices.Contains(uris, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		r.s.sdk.RemoveResources(gone...)
	}
	r.uris = uris
}

// read reads the schema card of the source name.
func (r *resources) read(name string) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				r.s.log.Error("mcp: panic in a resource read", "uri", req.Params.URI, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("aiq-rpc failed inside the read of %s (a bug, now in its log); try again, or report it", req.Params.URI)
			}
		}()
		card, err := r.s.ws.SchemaCard(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("read the schema of %s: %w", name, err)
		}
		text := fmt.Sprintf("# Schema of the source %s\n\n%s\n", name, card)
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}}, nil
	}
}

// watch syncs the resources whenever sources.yaml changes, until ctx is
// done.
func (r *resources) watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		changed := r.fileStamp() != r.stamp
		r.mu.Unlock()
		if changed {
			r.sync(ctx)
		}
	}
}

func (r *resources) fileStamp() string {
	info, err := os.Stat(r.s.opts.Home.SourcesPath())
	if err != nil {
		return "none"
	}
	return fmt.Sprint(info.Size(), info.ModTime().UnixNano())
}
