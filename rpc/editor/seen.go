package editor

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// What the user saw of each result (the rows the editor was sent, real
// values of masked columns included, and the row count) is kept beside
// the session file, in its seen file (sessionio.WriteSeen), so that a
// conversation opened again shows its results as they were seen.
// chat/history with detail "full" returns them in seen, apart from the
// messages: they never enter the conversation, the session file or
// anything sent to a model.

// seenStore holds each open session's seen results, read from its seen
// file when first needed and written after each turn's autosave.
type seenStore struct {
	mu       sync.Mutex
	sessions map[string]*seenSession
}

type seenSession struct {
	path    string // the session file the results were read or written beside
	results []sessionio.SeenResult
	// writer writes the seen file, encoding only the results it has not
	// written before; calls holds the statement of each execute_sql call
	// of the history, with the arguments it was read from, so that a turn
	// reads only those of its own calls.
	writer sessionio.SeenWriter
	calls  map[string]sqlCall
	// pending is the session file whose seen file waits for the results
	// of the last turn, written once its answer is out; "" when written.
	pending string
}

// sqlCall is the statement of an execute_sql call, read from its
// arguments.
type sqlCall struct {
	arguments, sql string
}

// seenLocked returns session id's results, reading its seen file the
// first time. s.seen.mu is held.
func (s *Server) seenLocked(ctx context.Context, id string) *seenSession {
	if s.seen.sessions == nil {
		s.seen.sessions = map[string]*seenSession{}
	}
	if ss := s.seen.sessions[id]; ss != nil {
		return ss
	}
	ss := &seenSession{}
	if info, err := s.ws.Info(ctx, id); err == nil && info.Path != "" {
		ss.path = info.Path
		results, err := sessionio.ReadSeen(info.Path)
		if err != nil {
			s.log.Warn("read what the user saw", "session", id, "err", err)
		}
		ss.results = results
	}
	s.seen.sessions[id] = ss
	return ss
}

// loadSeen reads the seen file of a session just loaded.
func (s *Server) loadSeen(ctx context.Context, id string) {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	s.seenLocked(ctx, id)
}

// recordSeen keeps the statements of a finished turn as the editor got
// them, and writes the seen file beside the file the turn was saved to
// once the turn's answer is out: the conversation is saved before the
// answer, but what the user saw is for showing it again later, and its
// file (a megabyte at 200 turns) need not hold the answer up. chat/history
// reads the results from memory meanwhile; session/close and the server's
// end write what waits. Results no longer in the session (a cancelled
// turn, turns trimmed to the history limit) are dropped.
func (s *Server) recordSeen(ctx context.Context, id string, ans conversation.Answer) {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	ss := s.seenLocked(ctx, id)
	for _, st := range ans.Statements {
		if st.CallID == "" || st.Status != "success" {
			continue
		}
		ss.results = append(ss.results, sessionio.SeenResult{CallID: st.CallID, Columns: st.Columns, ColumnTypes: st.ColumnTypes, Rows: st.Rows,
			RowCount: st.RowCount, Truncated: st.Truncated})
	}
	if ans.SavedTo == "" {
		return // not saved: kept in memory for the next save
	}
	ss.pending = ans.SavedTo
	conversation.AfterAnswer(ctx, func() { s.flushSeen(id) })
}

// flushSeen writes session id's seen file if results wait for it.
func (s *Server) flushSeen(id string) {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	if ss := s.seen.sessions[id]; ss != nil {
		s.writePendingLocked(id, ss)
	}
}

// writePendingLocked writes the seen file that waits for the results of
// ss's last turn, if one does. The request that left the write may be
// over, and its context with it. s.seen.mu is held.
func (s *Server) writePendingLocked(id string, ss *seenSession) {
	if ss.pending != "" {
		s.writeSeenLocked(context.Background(), id, ss, ss.pending)
	}
}

// writeSeenLocked writes ss beside the session file at path, keeping only
// the results of calls the session still holds. s.seen.mu is held.
func (s *Server) writeSeenLocked(ctx context.Context, id string, ss *seenSession, path string) {
	ss.pending = ""
	h, err := s.ws.History(ctx, id, true)
	if err != nil {
		return
	}
	ss.calls = readSQLCalls(h.Messages, ss.calls)
	kept := ss.results[:0]
	for _, r := range ss.results {
		if c, ok := ss.calls[r.CallID]; ok {
			r.SQL = c.sql
			kept = append(kept, r)
		}
	}
	written, err := ss.writer.Write(path, kept)
	if err != nil {
		s.log.Warn("save what the user saw", "session", id, "err", err)
		written = kept
	}
	ss.results, ss.path = written, path
}

// seenSaved writes a session's seen file beside the file session/save
// wrote, which may be a new one.
func (s *Server) seenSaved(ctx context.Context, saved conversation.Saved) {
	if saved.Path == "" {
		return
	}
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	ss := s.seenLocked(ctx, saved.SessionID)
	if ss.pending != saved.Path {
		// The file the last turn was saved to keeps what was seen of it too.
		s.writePendingLocked(saved.SessionID, ss)
	}
	if len(ss.results) == 0 && ss.path == saved.Path {
		return
	}
	s.writeSeenLocked(ctx, saved.SessionID, ss, saved.Path)
}

// forgetSeen drops a session's results from memory (session/close); with
// the path of the file chat/clear emptied, it also removes their seen
// files.
func (s *Server) forgetSeen(id, cleared string) {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	if ss := s.seen.sessions[id]; ss != nil && cleared == "" {
		s.writePendingLocked(id, ss)
	}
	delete(s.seen.sessions, id)
	if cleared == "" {
		return
	}
	if err := sessionio.RemoveSeen(cleared); err != nil {
		s.log.Warn("remove what the user saw", "session", id, "err", err)
	}
}

// closeSeen writes the seen files that wait for their turn's results, as
// the server ends.
func (s *Server) closeSeen() {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	for id, ss := range s.seen.sessions {
		s.writePendingLocked(id, ss)
	}
}

// seenResult is a result as chat/history returns it in seen.
type seenResult struct {
	Columns     []string `json:"columns"`
	ColumnTypes []string `json:"columnTypes,omitempty"`
	Rows        [][]any  `json:"rows,omitempty"`
	RowCount    int64    `json:"rowCount"`
	// Truncated says that the rows are the first page of more.
	Truncated bool `json:"truncated,omitempty"`
	// RowsKept is false when the rows were dropped to keep the seen file
	// to its bound; the editor then shows the session file's rows and
	// says how many of RowCount they are.
	RowsKept bool `json:"rowsKept"`
}

// seenFor returns the seen results of the calls in messages, by call id,
// those whose statement is the one the call ran.
func (s *Server) seenFor(ctx context.Context, id string, messages []conversation.Message) map[string]seenResult {
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	ss := s.seenLocked(ctx, id)
	calls := sqlCalls(messages)
	out := map[string]seenResult{}
	for _, r := range ss.results {
		if sql, ok := calls[r.CallID]; !ok || sql != r.SQL {
			continue
		}
		out[r.CallID] = seenResult{Columns: r.Columns, ColumnTypes: r.ColumnTypes, Rows: r.Rows, RowCount: r.RowCount, Truncated: r.Truncated,
			RowsKept: !r.RowsDropped}
	}
	return out
}

// sqlCalls maps the id of each execute_sql call in messages to its SQL.
func sqlCalls(messages []conversation.Message) map[string]string {
	calls := map[string]string{}
	for id, c := range readSQLCalls(messages, nil) {
		calls[id] = c.sql
	}
	return calls
}

// readSQLCalls maps the id of each execute_sql call in messages to its
// SQL, taking those whose arguments are as in known from there.
func readSQLCalls(messages []conversation.Message, known map[string]sqlCall) map[string]sqlCall {
	calls := make(map[string]sqlCall, len(known)+2)
	for _, m := range messages {
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				continue
			}
			if k, ok := known[c.ID]; ok && k.arguments == c.Function.Arguments {
				calls[c.ID] = k
				continue
			}
			var args struct {
				SQL string `json:"sql"`
			}
			if json.Unmarshal([]byte(c.Function.Arguments), &args) == nil {
				calls[c.ID] = sqlCall{arguments: c.Function.Arguments, sql: args.SQL}
			}
		}
	}
	return calls
}
