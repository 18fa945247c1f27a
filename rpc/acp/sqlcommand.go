package acp

import (
	"context"

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
	return a.turn(ctx, s, conversation.Question{Query: sql}, func(u *updates) (conversation.Answer, error) {
		return a.ws.RunSQL(ctx, s.wsID, sql, a.confirmer(s), u.event)
	})
}
