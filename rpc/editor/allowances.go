package editor

import (
	"context"

	"github.com/aiq/aiq-rpc/conversation"
)

// allowancesResult lists a session's "Allow always" answers.
type allowancesResult struct {
	SessionID  string                   `json:"sessionId"`
	Allowances []conversation.Allowance `json:"allowances"`
}

func chatAllowances(ctx context.Context, s *Server, req request, p sessionParams) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	list, err := s.ws.Allowances(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	return allowancesResult{SessionID: p.SessionID, Allowances: list}, nil
}

func chatRevoke(ctx context.Context, s *Server, req request, p struct {
	SessionID string `json:"sessionId"`
	ID        string `json:"id"`
}) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	if p.ID == "" {
		return nil, missing(req.method, "id")
	}
	list, err := s.ws.Revoke(ctx, p.SessionID, p.ID)
	if err != nil {
		return nil, err
	}
	return allowancesResult{SessionID: p.SessionID, Allowances: list}, nil
}
