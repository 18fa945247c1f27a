package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
)

// sqlCommand runs /sql STATEMENT: the statement without the model, through
// the path a model's execute_sql takes (a write asks
// session/request_permission first), shown as a tool call and recorded as
// a turn.
func (a *Agent) sqlCommand(ctx context.Context, s *session, sql string) (sdk.PromptResponse, error) {
	if sql == "" {
		a.say(s.id, "Give the statement to run after /sql, such as `/sql SELECT count(*) FROM orders`.")
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	info, err := a.ws.Info(ctx, s.wsID)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	u := &updates{a: a, s: s, databaseType: info.DatabaseType, charts: map[string]string{}, ids: map[string]string{}}
	ans, err := a.ws.RunSQL(ctx, s.wsID, sql, a.confirmer(s), u.event)
	switch {
	case errors.Is(err, conversation.ErrSourceUnavailable):
		a.say(s.id, a.sourceProblem(ctx, info.Source, err))
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case err != nil:
		return sdk.PromptResponse{}, err
	}
	if ans.SaveError != nil {
		a.log.Error("autosave failed", "session", s.id, "err", ans.SaveError)
		a.say(s.id, "\n\n*"+conversation.SaveFailedMessage(ans.SaveError)+"*")
	}
	if ans.StopReason == conversation.StopCancelled {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	u.sayOutcome(ans)
	if info.Turns == 0 {
		a.announceTitle(s, conversation.Question{Query: sql})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}
