package conversation

import (
	"context"
	"fmt"
	"strings"
)

// RunSQL runs one SQL statement on session id without asking the model,
// for a user who re-runs or edits a statement: through exactly the path a
// model's execute_sql takes (the classifier, confirm before a write, the
// statement timeout, the first page of rows as it streams, cancel with
// ctx), recorded as a turn the AIQ CLI restores (the SQL as the user's
// message, the tool call and its result, and the assistant's message).
// Several statements are refused as they are for the model.
func (w *Workspace) RunSQL(ctx context.Context, id, sql string, confirm Confirmer, listen func(Event)) (Answer, error) {
	sql = strings.TrimSpace(sql)
	if sql == "" {
		return Answer{}, fmt.Errorf("%w: give the SQL statement to run", ErrInvalidRequest)
	}
	o, err := w.get(id)
	if err != nil {
		return Answer{}, err
	}
	if err := o.claim("run SQL"); err != nil {
		return Answer{}, err
	}
	defer o.release()
	if listen == nil {
		listen = func(Event) {}
	}
	direct := func(box *sessionToolbox) (Model, error) {
		if box == nil {
			return nil, fmt.Errorf("%w: this session has no data source to run the statement on; choose one of the sources in %s",
				ErrSourceUnavailable, w.cfg.Home.SourcesPath())
		}
		return directModel{sql: sql, callID: directCallID()}, nil
	}
	return w.runTurn(ctx, o, sql, confirm, listen, direct)
}
