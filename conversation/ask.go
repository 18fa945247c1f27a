package conversation

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// Question is what the user asks: a query, a selection from the editor,
// or both.
type Question struct {
	Query     string
	Selection *Selection
	// Attached are more texts the user gave with the question, such as
	// whole files; each goes in its own fenced block after the selection.
	Attached []Selection
}

// Selection is text the user selected in the editor.
type Selection struct {
	Text       string
	LanguageID string
	URI        string
	Range      *Range
}

// Range is a span of a document, zero-based as in LSP.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a place in a document, zero-based as in LSP.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// userText is the user message of a question. A selection, and each
// attached text, goes in a fenced block tagged with its language; a
// selection alone is the question.
func (q Question) userText() string {
	query := strings.TrimSpace(q.Query)
	blocks := q.blocks()
	switch {
	case len(blocks) == 0:
		return query
	case query == "" && len(blocks) == 1:
		return blocks[0].Text
	}
	var parts []string
	if query != "" {
		parts = append(parts, query)
	}
	for _, b := range blocks {
		parts = append(parts, b.fenced())
	}
	return strings.Join(parts, "\n\n")
}

// Statement is a SQL statement a turn ran, with the rows for the editor.
type Statement struct {
	SQL      string   `json:"sql"`
	Status   string   `json:"status"`
	RowCount int64    `json:"rowCount"`
	Columns  []string `json:"columns"`
	// ColumnTypes are the engine's type names of the columns, lower-case
	// (int4, numeric, date, timestamptz; see engine.StatementResult);
	// absent for a statement read back from a saved session.
	ColumnTypes []string `json:"columnTypes,omitempty"`
	// Rows are the values as the editor shows them: an exact decimal
	// (a numeric column) as a string that keeps its scale, dates and
	// times as the engine's text (see engine.EditorRows).
	Rows      [][]any `json:"rows"`
	Truncated bool    `json:"truncated"`
	Error     string  `json:"error,omitempty"`
	// CallID is the tool call that ran the statement, so that a front end
	// can find the statement's notifications.
	CallID string `json:"callId,omitempty"`
	// AllowedBy is the scope of the allowance ("Allow always") under which
	// a write ran without asking; empty when it asked, and for a read.
	AllowedBy string `json:"allowedBy,omitempty"`
	// Warnings are what the engine said about the statement besides its
	// result (MySQL's and MariaDB's SHOW WARNINGS, PostgreSQL's notices),
	// a line each, as the user may read them.
	Warnings []string `json:"warnings,omitempty"`
}

// Answer is a finished turn.
type Answer struct {
	SessionID string `json:"sessionId"`
	// StopReason is "end_turn", "max_tokens" when the answer reached the
	// model's output limit, "refusal" when the endpoint's content filter
	// stopped it, or "cancelled" when the turn was cancelled; a cancelled
	// turn leaves the session as it was.
	StopReason string `json:"stopReason"`
	Answer     string `json:"answer"`
	// Thoughts is the reasoning the model streamed, "" for a model that
	// gives none.
	Thoughts   string      `json:"thoughts,omitempty"`
	Statements []Statement `json:"statements"`
	// SavedTo is the file the turn was saved to; "" when the save failed.
	SavedTo  string   `json:"savedTo"`
	Warnings []string `json:"warnings"`
	// SaveError is why the autosave failed, for the front end to tell the
	// user apart from the answer; Warnings leaves it out.
	SaveError error `json:"-"`
	// Trimmed says that the turn dropped the oldest turns to keep to the
	// history limit; nil when it dropped none.
	Trimmed *Trimmed `json:"trimmed,omitempty"`
}

// Trimmed is how far a session was cut to its history limit: it keeps
// the last Kept of its Of turns.
type Trimmed struct {
	Kept int `json:"kept"`
	Of   int `json:"of"`
}

// The stop reasons of a turn.
const (
	StopEndTurn   = "end_turn"
	StopCancelled = "cancelled"
)

// Ask runs one turn on session id. confirm is asked before a statement
// that writes; nil rejects every write. listen hears the turn as it
// happens, on the calling goroutine, and may be nil.
func (w *Workspace) Ask(ctx context.Context, id string, q Question, confirm Confirmer, listen func(Event)) (Answer, error) {
	text := q.userText()
	if text == "" {
		return Answer{}, fmt.Errorf("%w: give a query or a selection with some text", ErrInvalidRequest)
	}
	o, err := w.get(id)
	if err != nil {
		return Answer{}, err
	}
	if err := o.claim("ask"); err != nil {
		return Answer{}, err
	}
	defer o.release()
	if listen == nil {
		listen = func(Event) {}
	}
	return w.runTurn(ctx, o, text, confirm, listen, nil)
}

// runTurn runs text as a turn of o. pick chooses the model from the
// session's toolbox; nil means the configured one (see model).
func (w *Workspace) runTurn(ctx context.Context, o *openSession, text string, confirm Confirmer, listen func(Event),
	pick func(box *sessionToolbox) (Model, error)) (Answer, error) {
	box, err := w.toolbox(ctx, o)
	if err != nil {
		return Answer{}, err
	}
	if box != nil {
		box.setConfirmer(confirm)
		defer box.setConfirmer(nil)
	}
	if pick == nil {
		pick = func(box *sessionToolbox) (Model, error) { return w.model(box, text, listen) }
	}
	model, err := pick(box)
	if err != nil {
		return Answer{}, err
	}
	model = o.sessionModel(model)
	runner := Runner{Model: model, HistoryLimit: w.historyLimit(), MaxModelCalls: w.cfg.MaxModelCalls, Now: w.cfg.Now}
	if box != nil {
		runner.Tools = box
	}
	o.mu.Lock()
	work := o.s.clone()
	o.mu.Unlock()
	rec := &recorder{listen: listen}
	turn := Turn{System: w.systemPrompt(ctx, box, text), User: text}
	before := work.Turns()
	res, err := runner.Run(ctx, work, turn, rec)
	ans := Answer{SessionID: o.id, StopReason: StopEndTurn, Statements: nonNil(rec.statements), Warnings: []string{}}
	switch {
	case err != nil && ctx.Err() != nil:
		ans.StopReason, ans.Answer, ans.Thoughts = StopCancelled, rec.text.String(), rec.thoughts.String()
		return ans, nil
	case err != nil:
		return Answer{}, err
	}
	ans.Answer = legacyAnswer(res)
	ans.StopReason = res.StopReason
	ans.Thoughts = res.Thoughts
	if w := StopWarning(res.StopReason); w != "" {
		ans.Warnings = append(ans.Warnings, w)
	}
	if kept := work.Turns(); kept < before+1 {
		ans.Trimmed = &Trimmed{Kept: kept, Of: before + 1}
	}
	if _, direct := model.(directModel); direct {
		// The statement's outcome, which the editor shows, is the whole
		// answer; the saved file still gets its summary, as the CLI's do.
		ans.Answer = res.Answer
	}
	o.mu.Lock()
	o.s, o.dirty = work, true
	o.mu.Unlock()
	saved, err := w.autosave(o)
	if err != nil {
		// The front end tells the user, once; Warnings does not repeat it.
		ans.SaveError = err
	}
	ans.SavedTo = saved.Path
	ans.Warnings = append(ans.Warnings, saved.Notes...)
	return ans, nil
}

// model returns the configured model. Without one, a question that is a
// single SQL statement still runs, directly, so that a user with no model
// can run a selection against a database.
func (w *Workspace) model(box *sessionToolbox, text string, listen func(Event)) (Model, error) {
	m, err := w.cfg.Model()
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, ErrNoModel) {
		return nil, err
	}
	if box != nil && isPlainSQL(text, box.dialect) {
		listen(Event{Kind: EventStatus, Message: "No model is configured: running the statement directly."})
		return directModel{sql: text, configPath: w.cfg.Home.ConfigPath(), callID: directCallID()}, nil
	}
	if box == nil && isPlainSQLOfAnyDialect(text) {
		// Saying that a single statement runs without a model would be
		// wrong here: it needs a database too.
		return nil, fmt.Errorf("%w, and this session has no data source to run the statement on: choose one of the sources in %s, or set llm.url, llm.model and llm.api_key in %s",
			ErrNoModel, w.cfg.Home.SourcesPath(), w.cfg.Home.ConfigPath())
	}
	return nil, fmt.Errorf("%w: %s; a question that is a single SQL statement runs without a model",
		ErrNoModel, setUpModel(w.cfg.Home.ConfigPath()))
}

// setUpModel says how to configure a model, whose settings are in the
// file at configPath.
func setUpModel(configPath string) string {
	return fmt.Sprintf("set llm.url, llm.model and llm.api_key in %s, or the environment variables AIQ_LLM_URL, AIQ_MODEL and AIQ_API_KEY", configPath)
}

// directModel stands in for a model when there is none: it asks to run
// the user's statement, then ends the turn without text, so the turn is
// recorded as any other and the saved answer is the result's summary.
// When the database could not read the statement, the text says so: the
// user may have typed a question that starts like SQL ("Show me the
// biggest orders"), which only a model can answer.
type directModel struct {
	sql        string
	configPath string // "" when a model is configured: nothing to explain
	callID     string
}

// directCallID is the id of a statement run without the model: unique in
// a session, whose earlier turns keep theirs, as a model's ids are (an
// editor may look a call up across the whole conversation).
func directCallID() string {
	return "call_direct_" + strings.ToLower(rand.Text()[:12])
}

func (d directModel) Complete(ctx context.Context, req Request, onText func(string)) (Reply, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == RoleUser {
		args, err := json.Marshal(map[string]string{"sql": d.sql})
		if err != nil {
			return Reply{}, err
		}
		call := ToolCall{ID: d.callID, Type: "function", Function: FunctionCall{Name: "execute_sql", Arguments: string(args)}}
		return Reply{ToolCalls: []ToolCall{call}}, nil
	}
	if last.Role == RoleTool && d.configPath != "" && isSyntaxError(last.Content) {
		text := "The database could not read this as SQL. No model is configured, so a question in plain words cannot be answered: " +
			setUpModel(d.configPath) + "."
		onText(text)
		return Reply{Content: text}, nil
	}
	return Reply{}, nil
}

// isSyntaxError reports whether a tool result holds the error a database
// gives for text it cannot parse: PostgreSQL's and SQLite's "syntax
// error", MySQL's and MariaDB's "error in your SQL syntax" (1064).
func isSyntaxError(result string) bool {
	return strings.Contains(result, "syntax error") || strings.Contains(result, "error in your SQL syntax")
}

// isPlainSQL reports whether text is one SQL statement that the classifier
// knows by its first keyword, whatever comments lead it, and nothing else.
// A text that ends in a question mark is a question: no statement ends in
// a bind parameter it has no value for.
// isPlainSQLOfAnyDialect reports whether text is one statement of one of
// the dialects, for a session that has no database to say which.
func isPlainSQLOfAnyDialect(text string) bool {
	for _, d := range []sqltext.Dialect{sqltext.DialectPostgres, sqltext.DialectMySQL, sqltext.DialectSQLite} {
		if isPlainSQL(text, string(d)) {
			return true
		}
	}
	return false
}

func isPlainSQL(text string, d string) bool {
	return !strings.HasSuffix(strings.TrimSpace(text), "?") && singleStatement(text, d)
}
