package editor

import "github.com/aiq/aiq-rpc/conversation"

// A client that announces capabilities.rowsOnce gets each statement's page
// of rows once: in its rows notification when one was sent, else in its
// tool_result. A tool_result after a rows notification, and every
// statement of the turn's response, then leave rows out and say where
// they went with rowsSent. Any other client gets the page in each of them,
// as protocol version 1 first said.

// sentStatement is a statement whose rows may have gone before: Rows
// shadows the statement's own, so that nil leaves the key out.
type sentStatement struct {
	conversation.Statement
	Rows [][]any `json:"rows,omitempty"`
	// RowsSent says that the rows went in the notification of the same
	// callId: rows when there was one, else tool_result.
	RowsSent bool `json:"rowsSent,omitempty"`
}

// withoutRows is st with its rows left out, marked as sent. A statement
// that did not succeed keeps its (empty) rows: the page a rows
// notification showed is not its outcome.
func withoutRows(st conversation.Statement) *sentStatement {
	if st.Status != "success" {
		return withRows(st)
	}
	return &sentStatement{Statement: st, RowsSent: true}
}

// withRows is st as it is.
func withRows(st conversation.Statement) *sentStatement {
	return &sentStatement{Statement: st, Rows: st.Rows}
}

// sentAnswer is a turn's response for a rowsOnce client: its statements'
// rows all went in the turn's notifications.
type sentAnswer struct {
	conversation.Answer
	Statements []*sentStatement `json:"statements"`
}

func answerWithoutRows(ans conversation.Answer) sentAnswer {
	out := sentAnswer{Answer: ans, Statements: []*sentStatement{}}
	for _, st := range ans.Statements {
		if st.CallID == "" {
			out.Statements = append(out.Statements, withRows(st))
			continue
		}
		out.Statements = append(out.Statements, withoutRows(st))
	}
	return out
}
