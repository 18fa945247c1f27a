package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// promptRequest is session/prompt's params with the blocks left raw, so
// that each can be checked on its own and a bad one named.
type promptRequest struct {
	SessionId sdk.SessionId     `json:"sessionId"`
	Prompt    []json.RawMessage `json:"prompt"`
}

// Validate checks what the SDK's PromptRequest would.
func (p *promptRequest) Validate() error {
	switch {
	case p.SessionId == "":
		return errors.New("sessionId is required")
	case p.Prompt == nil:
		return errors.New("prompt is required: an array of content blocks")
	}
	return nil
}

// question reads the prompt's blocks: text is the question, an embedded
// resource is attached in a fenced block, and a resource link is named but
// not read (the agent reads no files, so it cannot follow one).
func question(blocks []json.RawMessage) (conversation.Question, error) {
	var q conversation.Question
	var text []string
	for i, raw := range blocks {
		var b sdk.ContentBlock
		if err := json.Unmarshal(raw, &b); err != nil {
			return q, fmt.Errorf("prompt[%d] is not a content block (%v); send text, resource or resource_link blocks", i, err)
		}
		switch {
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			q.Attached = append(q.Attached, conversation.Selection{Text: r.Text, URI: r.Uri})
		case b.Resource != nil:
			return q, fmt.Errorf("prompt[%d] is a binary resource, which this agent cannot read; attach text", i)
		case b.ResourceLink != nil:
			text = append(text, fmt.Sprintf("(The user refers to %s, %s, which is not attached.)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Image != nil, b.Audio != nil:
			return q, fmt.Errorf("prompt[%d] is an %s block, which this agent does not take (promptCapabilities.%[2]s is false); send text", i, blockType(b))
		default:
			return q, fmt.Errorf("prompt[%d] has no known type; send text, resource or resource_link blocks", i)
		}
	}
	q.Query = strings.Join(text, "\n\n")
	if strings.TrimSpace(q.Query) == "" && len(q.Attached) == 0 {
		return q, errors.New("the prompt has no text: send at least one text block or an embedded resource")
	}
	return q, nil
}

func blockType(b sdk.ContentBlock) string {
	if b.Image != nil {
		return "image"
	}
	return "audio"
}

func sessionPrompt(ctx context.Context, a *Agent, p promptRequest) (any, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil, err
	}
	q, err := question(p.Prompt)
	if err != nil {
		return nil, &invalidParams{sdk.AgentMethodSessionPrompt, err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := a.start(ctx, s, cancel); err != nil {
		return nil, err
	}
	defer a.done(s)
	if cmd, arg, ok := slashCommand(q); ok && cmd == "sql" {
		return a.sqlCommand(ctx, s, arg)
	} else if ok {
		return a.command(ctx, s, cmd, arg)
	}
	return a.turn(ctx, s, q, func(u *updates) (conversation.Answer, error) {
		return a.ws.Ask(ctx, s.wsID, q, a.confirmer(s), u.event)
	})
}

// turn runs one turn on the workspace, a question (Ask) or a statement
// (RunSQL) as run does it, and streams it to the client; q titles the
// session after its first turn.
func (a *Agent) turn(ctx context.Context, s *session, q conversation.Question, run func(*updates) (conversation.Answer, error)) (sdk.PromptResponse, error) {
	info, err := a.ws.Info(ctx, s.wsID)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	for _, p := range a.takeConfigProblems() {
		a.say(s.id, "*"+p+"*\n\n")
	}
	u := &updates{a: a, s: s, databaseType: info.DatabaseType, charts: map[string]string{}, ids: map[string]string{}}
	ans, err := run(u)
	switch {
	case errors.Is(err, conversation.ErrTooManyModelCalls):
		a.say(s.id, "\n\n"+conversation.UserMessage(err))
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
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
		a.announceTitle(s, q)
	}
	// A cut-off answer and a filtered one say so after the answer; ACP has
	// stop reasons for both.
	if w := conversation.StopWarning(ans.StopReason); w != "" {
		a.say(s.id, "\n\n*"+w+"*")
	}
	switch ans.StopReason {
	case conversation.StopMaxTokens:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case conversation.StopRefusal:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// sourceProblem answers a prompt on a session whose source cannot be
// used: what is wrong and how to pick another.
func (a *Agent) sourceProblem(ctx context.Context, source string, err error) string {
	sources, _ := a.ws.Sources()
	configured := slices.ContainsFunc(sources, func(s sessionio.Source) bool { return s.Name == source })
	problem := conversation.UserMessage(err)
	if !configured {
		problem = fmt.Sprintf("The data source %q of this session is not configured any more.", source)
	}
	return problem + "\n\n" + a.sourceList(ctx, source)
}

// updates turns a turn's events into session/update notifications.
type updates struct {
	a            *Agent
	s            *session
	databaseType string
	charts       map[string]string // Markdown of a call's chart, until its result
	ids          map[string]string // the id the client was shown of each call (see cardID)
	said         bool              // the answer's text was sent
}

func (u *updates) event(e conversation.Event) {
	switch e.Kind {
	case conversation.EventText:
		u.said = u.said || strings.TrimSpace(e.Text) != ""
		u.a.say(u.s.id, e.Text)
	case conversation.EventThought:
		u.a.notify(u.s.id, sdk.UpdateAgentThoughtText(e.Text))
	case conversation.EventStatus:
		u.a.say(u.s.id, "*"+e.Message+"*\n\n")
	case conversation.EventToolCall:
		id := u.s.cardID(e.CallID)
		u.ids[e.CallID] = id
		title, kind := callTitle(e.Tool, e.Arguments, e.SQL, u.databaseType)
		u.s.mu.Lock()
		u.s.callID, u.s.callTitle = id, title
		u.s.mu.Unlock()
		opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(kind), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
			sdk.WithStartRawInput(rawInput(e.Arguments))}
		if e.SQL != "" {
			opts = append(opts, sdk.WithStartContent(textContent(conversation.Fenced(e.SQL, "sql"))))
		}
		u.a.notify(u.s.id, sdk.StartToolCall(sdk.ToolCallId(id), title, opts...))
	case conversation.EventChart:
		data, err := json.Marshal(e.Chart)
		if err == nil {
			u.charts[e.CallID] = chartMarkdown(data)
		}
	case conversation.EventToolResult:
		u.a.notify(u.s.id, u.result(e))
	}
}

// result is a tool_call_update that ends a call: completed or failed, with
// the rows as a Markdown table, the row count and the error if any.
func (u *updates) result(e conversation.Event) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if e.Failed {
		status = sdk.ToolCallStatusFailed
	}
	content := u.cardContent(e)
	var output any
	if e.Statement != nil {
		output = map[string]any{"status": e.Statement.Status, "rowCount": e.Statement.RowCount, "error": e.Statement.Error}
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(textContent(content))}
	if output != nil {
		opts = append(opts, sdk.WithUpdateRawOutput(output))
	}
	id, ok := u.ids[e.CallID]
	if !ok {
		id = u.s.cardID(e.CallID)
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(id), opts...)
}

// The tools of conversation's SQL toolbox, as the model calls them.
const (
	toolExecuteSQL    = "execute_sql"
	toolListTables    = "list_tables"
	toolDescribeTable = "describe_table"
	toolRenderChart   = "render_chart"
	toolSearchSchema  = "search_schema"
	toolProfileColumn = "profile_column"
	toolExplainSQL    = "explain_sql"
)

// callTitle says what a tool call does, for the editor's list of calls,
// and its kind: read for a query, edit for a write, execute for DDL.
func callTitle(tool string, args json.RawMessage, sql, databaseType string) (string, sdk.ToolKind) {
	var a struct {
		Table  string   `json:"table"`
		Tables []string `json:"tables"`
		Title  string   `json:"title"`
		Query  string   `json:"query"`
		Column string   `json:"column"`
	}
	json.Unmarshal(args, &a)
	switch tool {
	case toolExecuteSQL:
		return sqlTitle(sql), riskKind(conversation.StatementRisk(sql, databaseType))
	case toolListTables:
		return "List the tables", sdk.ToolKindRead
	case toolDescribeTable:
		if a.Table == "" && len(a.Tables) > 0 {
			return firstLine("Describe the tables "+strings.Join(a.Tables, ", "), "Describe tables"), sdk.ToolKindRead
		}
		return "Describe the table " + a.Table, sdk.ToolKindRead
	case toolSearchSchema:
		return firstLine("Search the schema for "+a.Query, "Search the schema"), sdk.ToolKindSearch
	case toolProfileColumn:
		return "Profile the column " + a.Table + "." + a.Column, sdk.ToolKindRead
	case toolExplainSQL:
		return firstLine("Explain "+sql, "Explain a statement"), sdk.ToolKindRead
	case toolRenderChart:
		if a.Title != "" {
			return "Chart: " + a.Title, sdk.ToolKindOther
		}
		return "Draw a chart", sdk.ToolKindOther
	}
	return tool, sdk.ToolKindOther
}

func riskKind(risk string) sdk.ToolKind {
	switch risk {
	case conversation.RiskRead:
		return sdk.ToolKindRead
	case conversation.RiskDDL:
		return sdk.ToolKindExecute
	}
	return sdk.ToolKindEdit
}

// firstLine is the first line of text that is not blank, shortened, or
// else the fallback.
func firstLine(text, fallback string) string {
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if r := []rune(line); len(r) > 80 {
				return string(r[:79]) + "…"
			}
			return line
		}
	}
	return fallback
}

// rawInput is a call's arguments as the client should show them: the JSON
// object, or nothing when it could not be read.
func rawInput(args json.RawMessage) any {
	if len(args) == 0 {
		return nil
	}
	return args
}

func textContent(text string) []sdk.ToolCallContent {
	if text == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
}
