package editor

import (
	"context"
	"errors"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

type sessionParams struct {
	SessionID string `json:"sessionId"`
}

type sourceInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Host     string `json:"host,omitempty"`
	Port     int    `json:"port,omitempty"`
	Database string `json:"database,omitempty"`
	// Access and Label are the source's policy and label in sources.yaml.
	Access string `json:"access,omitempty"`
	Label  string `json:"label,omitempty"`
}

// sources lists the configured sources, never a password. A broken
// sources.yaml becomes a warning: the editor can still run without one.
func (s *Server) sources(warnings []string) ([]sourceInfo, []string) {
	list, err := s.ws.Sources()
	if err != nil {
		return []sourceInfo{}, append(warnings, err.Error())
	}
	return sourceInfos(list), warnings
}

func sourceInfos(list []sessionio.Source) []sourceInfo {
	infos := []sourceInfo{}
	for _, src := range list {
		infos = append(infos, sourceInfo{Name: src.Name, Type: src.Type, Host: src.Host, Port: src.Port, Database: src.Database,
			Access: src.Access, Label: src.Label})
	}
	return infos
}

func sessionNew(ctx context.Context, s *Server, req request, p struct {
	Source string `json:"source"`
}) (any, error) {
	return s.ws.New(ctx, p.Source)
}

type loadResult struct {
	conversation.LoadInfo
	Sources []sourceInfo `json:"sources"`
}

func sessionLoad(ctx context.Context, s *Server, req request, p struct {
	Path string `json:"path"`
}) (any, error) {
	if p.Path == "" {
		return nil, missing(req.method, "path")
	}
	info, err := s.ws.Load(ctx, p.Path)
	if err != nil {
		return nil, err
	}
	res := loadResult{LoadInfo: info}
	res.Sources, res.Warnings = s.sources(res.Warnings)
	s.loadSeen(ctx, info.SessionID) // here, so that chat/history reads memory
	return res, nil
}

func sessionSetSource(ctx context.Context, s *Server, req request, p struct {
	SessionID string  `json:"sessionId"`
	Source    *string `json:"source"`
}) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	if p.Source == nil {
		return nil, missing(req.method, `source (a source name, or "" for no database)`)
	}
	return s.ws.SetSource(ctx, p.SessionID, *p.Source)
}

func sessionSave(ctx context.Context, s *Server, req request, p struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	saved, err := s.ws.Save(ctx, p.SessionID, p.Path)
	if err != nil {
		return nil, err
	}
	s.seenSaved(ctx, saved)
	return saved, nil
}

// sessionListParams are session/list's: with LatestFor, the list holds
// only the session marked latest for that source, found without reading
// the whole folder.
type sessionListParams struct {
	LatestFor *string `json:"latestFor"`
}

func sessionList(ctx context.Context, s *Server, req request, p sessionListParams) (any, error) {
	var list []conversation.Listed
	var err error
	if p.LatestFor != nil {
		var l conversation.Listed
		var ok bool
		l, ok, err = conversation.LatestSession(s.opts.Home.SessionsDir(), *p.LatestFor)
		list = []conversation.Listed{}
		if ok {
			list = append(list, l)
		}
	} else {
		list, err = conversation.ListSessions(s.opts.Home.SessionsDir())
		// What the user saw of a session deleted since goes with it.
		if _, rmErr := sessionio.RemoveOrphanSeen(s.opts.Home.SessionsDir()); rmErr != nil {
			s.log.Warn("remove what the user saw of deleted sessions", "err", rmErr)
		}
	}
	if err != nil {
		return nil, err
	}
	return struct {
		Sessions []conversation.Listed `json:"sessions"`
	}{list}, nil
}

func sessionClose(ctx context.Context, s *Server, req request, p sessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	saved, err := s.ws.CloseSession(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	s.forgetSeen(p.SessionID, "")
	return saved, nil
}

func schemaRefresh(ctx context.Context, s *Server, req request, p sessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	return s.ws.RefreshSchema(ctx, p.SessionID)
}

func sourcesList(ctx context.Context, s *Server, req request, _ struct{}) (any, error) {
	list, err := s.ws.Sources()
	if err != nil {
		return nil, errors.Join(conversation.ErrSourceUnavailable, err)
	}
	return struct {
		Sources []sourceInfo `json:"sources"`
	}{sourceInfos(list)}, nil
}

func chatHistory(ctx context.Context, s *Server, req request, p struct {
	SessionID string `json:"sessionId"`
	Detail    string `json:"detail"`
}) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	switch p.Detail {
	case "", "turns", "full":
	default:
		return nil, invalidParams(req.method, `detail must be "turns" or "full"`)
	}
	h, err := s.ws.History(ctx, p.SessionID, p.Detail == "full")
	if err != nil || p.Detail != "full" {
		return h, err
	}
	return historyWithSeen{History: h, Seen: s.seenFor(ctx, p.SessionID, h.Messages)}, nil
}

// historyWithSeen is chat/history's answer with detail "full": the
// messages, and by call id what the user saw of each result (seen.go).
type historyWithSeen struct {
	conversation.History
	Seen map[string]seenResult `json:"seen"`
}

func chatClear(ctx context.Context, s *Server, req request, p sessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	saved, err := s.ws.Clear(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	s.forgetSeen(p.SessionID, saved.Path)
	return saved, nil
}
