package editor

import (
	"context"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
)

type initializeParams struct {
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Capabilities struct {
		Confirm bool `json:"confirm"`
		// RowsOnce: the client finds a statement's page in its rows
		// notification (see rowsonce.go).
		RowsOnce bool `json:"rowsOnce"`
	} `json:"capabilities"`
	Options struct {
		HistoryLimit int    `json:"historyLimit"`
		Source       string `json:"source"`
	} `json:"options"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion int        `json:"protocolVersion"`
	ServerInfo      serverInfo `json:"serverInfo"`
	Capabilities    struct {
		Methods []string `json:"methods"`
	} `json:"capabilities"`
	Home            string       `json:"home"`
	ModelConfigured bool         `json:"modelConfigured"`
	Sources         []sourceInfo `json:"sources"`
	Warnings        []string     `json:"warnings"`
}

func initialize(ctx context.Context, s *Server, req request, p initializeParams) (any, error) {
	if s.initialized.Load() {
		return nil, invalidRequest("initialize was already sent: send it once per connection")
	}
	s.canConfirm.Store(p.Capabilities.Confirm)
	s.rowsOnce.Store(p.Capabilities.RowsOnce)
	if p.Options.HistoryLimit < 0 {
		return nil, invalidParams(req.method, "options.historyLimit must not be negative")
	}
	s.ws.SetOptions(conversation.ClientOptions{HistoryLimit: p.Options.HistoryLimit, DefaultSource: p.Options.Source})
	res := initializeResult{
		ProtocolVersion: ProtocolVersion,
		ServerInfo:      serverInfo{Name: s.opts.Name, Version: s.opts.Version},
		Home:            s.opts.Home.Dir,
		ModelConfigured: s.configured.Load(),
		Warnings:        nonNil(s.opts.StartupWarnings),
	}
	res.Capabilities.Methods = methodNames(s.methods)
	res.Sources, res.Warnings = s.sources(res.Warnings)
	s.initialized.Store(true)
	// The warnings go out after the response, which the client must see
	// first: with the next message from the client, which is read only
	// after the response is written, or a moment later.
	time.AfterFunc(startupWarningDelay, s.sendStartupWarnings)
	return res, nil
}

// startupWarningDelay is how long the startup warnings wait for the
// client's next message.
const startupWarningDelay = 200 * time.Millisecond

func (s *Server) sendStartupWarnings() {
	s.startupOnce.Do(func() {
		for _, w := range s.opts.StartupWarnings {
			s.showMessage(context.Background(), messageWarning, w)
		}
	})
}

type shutdownResult struct {
	Saved []conversation.Saved `json:"saved"`
}

func shutdown(ctx context.Context, s *Server, req request, _ struct{}) (any, error) {
	saved, errs := s.ws.SaveAll(ctx)
	s.shutdown.Store(true)
	for _, err := range errs {
		s.log.Error("save session at shutdown", "err", err)
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return shutdownResult{Saved: saved}, nil
}

func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
