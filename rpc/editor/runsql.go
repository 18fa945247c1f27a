package editor

import (
	"context"
	"strings"

	"github.com/aiq/aiq-rpc/conversation"
)

type runSQLParams struct {
	SessionID string `json:"sessionId"`
	SQL       string `json:"sql"`
}

// chatRunSQL runs one statement without the model, through the path a
// model's execute_sql takes, and records it as a turn.
func chatRunSQL(ctx context.Context, s *Server, req request, p runSQLParams) (any, error) {
	if p.SessionID == "" {
		return nil, missing(req.method, "sessionId")
	}
	if strings.TrimSpace(p.SQL) == "" {
		return nil, missing(req.method, "sql (one SQL statement)")
	}
	progress := newProgress(s, p.SessionID, idValue(req.id))
	defer progress.close()
	ans, err := s.ws.RunSQL(ctx, p.SessionID, p.SQL, s.confirmer(p.SessionID), progress.event)
	progress.close() // every notification goes out before the response
	if err != nil {
		return nil, err
	}
	s.recordSeen(ctx, p.SessionID, ans)
	if ans.SaveError != nil {
		s.log.Error("autosave failed", "session", p.SessionID, "err", ans.SaveError)
		s.showMessage(ctx, messageError, conversation.SaveFailedMessage(ans.SaveError))
	}
	if s.rowsOnce.Load() {
		sent := answerWithoutRows(ans)
		return runSQLAnswer{sentAnswer: sent, Statement: lastOf(sent.Statements)}, nil
	}
	plain := make([]*sentStatement, 0, len(ans.Statements))
	for _, st := range ans.Statements {
		plain = append(plain, withRows(st))
	}
	return runSQLAnswer{sentAnswer: sentAnswer{Answer: ans, Statements: plain}, Statement: lastOf(plain)}, nil
}

// runSQLAnswer is chat/turn's answer with the statement that ran; nil
// when the turn was cancelled before it started.
type runSQLAnswer struct {
	sentAnswer
	Statement *sentStatement `json:"statement"`
}

func lastOf(list []*sentStatement) *sentStatement {
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1]
}
