package editor

import "context"

func modelsList(ctx context.Context, s *Server, req request, p struct {
	SessionID string `json:"sessionId"`
}) (any, error) {
	return s.ws.Models(ctx, p.SessionID)
}

func sessionSetModel(ctx context.Context, s *Server, req request, p struct {
	SessionID string `json:"sessionId"`
	Model     string `json:"model"`
}) (any, error) {
	if p.SessionID == "" {
		return nil, invalidParams(req.method, "give sessionId, the session whose model to set")
	}
	return s.ws.SetModel(ctx, p.SessionID, p.Model)
}
