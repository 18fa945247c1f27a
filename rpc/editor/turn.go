package editor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/conversation"
)

type turnParams struct {
	SessionID string `json:"sessionId"`
	Query     string `json:"query"`
	Selection *struct {
		Text       string              `json:"text"`
		LanguageID string              `json:"languageId"`
		URI        string              `json:"uri"`
		Range      *conversation.Range `json:"range"`
	} `json:"selection"`
}

func (p turnParams) question() conversation.Question {
	q := conversation.Question{Query: p.Query}
	if sel := p.Selection; sel != nil {
		q.Selection = &conversation.Selection{Text: sel.Text, LanguageID: sel.LanguageID, URI: sel.URI, Range: sel.Range}
	}
	return q
}

func chatTurn(ctx context.Context, s *Server, req request, p turnParams) (any, error) {
	if strings.TrimSpace(p.Query) == "" && (p.Selection == nil || strings.TrimSpace(p.Selection.Text) == "") {
		return nil, invalidParams(req.method, "give query or selection.text, or both")
	}
	id := p.SessionID
	if id == "" {
		var err error
		if id, err = s.ws.Default(ctx); err != nil {
			return nil, err
		}
	}
	progress := newProgress(s, id, idValue(req.id))
	defer progress.close()
	ans, err := s.ws.Ask(ctx, id, p.question(), s.confirmer(id), progress.event)
	progress.close() // every notification goes out before the response
	if err != nil {
		return nil, err
	}
	s.recordSeen(ctx, id, ans)
	if ans.SaveError != nil {
		// Said once, in a sentence; the error chain, with its paths, is for
		// the log.
		s.log.Error("autosave failed", "session", id, "err", ans.SaveError)
		s.showMessage(ctx, messageError, conversation.SaveFailedMessage(ans.SaveError))
	}
	if s.rowsOnce.Load() {
		return answerWithoutRows(ans), nil
	}
	return ans, nil
}

type confirmParams struct {
	SessionID string `json:"sessionId"`
	conversation.ConfirmRequest
}

// confirmer asks the editor to confirm a write with chat/confirm. A client
// that did not announce the capability gets the safe answer, reject, and
// the model learns why.
func (s *Server) confirmer(sessionID string) conversation.Confirmer {
	return func(ctx context.Context, req conversation.ConfirmRequest) (conversation.Decision, error) {
		if !s.canConfirm.Load() {
			return conversation.Reject, errors.New("the editor cannot ask the user to confirm a write, so only read-only statements run")
		}
		var res struct {
			Decision conversation.Decision `json:"decision"`
		}
		if _, err := s.conn.Call(ctx, "chat/confirm", confirmParams{SessionID: sessionID, ConfirmRequest: req}, &res); err != nil {
			return conversation.Reject, fmt.Errorf("ask the editor to confirm: %w", err)
		}
		switch res.Decision {
		case conversation.AllowOnce, conversation.AllowAlways, conversation.Reject:
			return res.Decision, nil
		}
		return conversation.Reject, fmt.Errorf("the editor answered chat/confirm with %q, which is not a decision", res.Decision)
	}
}
