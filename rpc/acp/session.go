package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// configSource is the id of the session config option that picks the
// data source.
const configSource = "source"

// noSource is the choice of no database in the pickers: a name that
// sources.yaml can only hold quoted, since unquoted it starts a comment.
const noSource = "#none"

func sourceOfChoice(choice string) string {
	if choice == noSource {
		return ""
	}
	return choice
}

// sourceChoices offers the data sources as the session's modes and as a
// config option, for the clients that show either. Both are nil when the
// sources cannot be read: the session still works, on its own source.
func (a *Agent) sourceChoices(ctx context.Context, s *session) (*sdk.SessionModeState, []sdk.SessionConfigOption) {
	info, err := a.ws.Info(ctx, s.wsID)
	if err != nil {
		return nil, nil
	}
	sources, err := a.ws.Sources()
	if err != nil {
		a.log.Warn("list sources", "err", err)
		return nil, nil
	}
	current := info.Source
	if current == "" {
		current = noSource
	}
	var modes []sdk.SessionMode
	var values sdk.SessionConfigSelectOptionsUngrouped
	add := func(id, name, description string) {
		modes = append(modes, sdk.SessionMode{Id: sdk.SessionModeId(id), Name: name, Description: sdk.Ptr(description)})
		values = append(values, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(id), Name: name, Description: sdk.Ptr(description)})
	}
	known := current == noSource
	for _, src := range sources {
		add(src.Name, src.Name, src.Type+" database")
		known = known || src.Name == current
	}
	if !known {
		add(current, current, "not configured any more: pick another")
	}
	add(noSource, "No database", "the model answers without running SQL")
	opt := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(current), sdk.SessionConfigSelectOptions{Ungrouped: &values})
	opt.Select.Id, opt.Select.Name = configSource, "Data source"
	opt.Select.Description = sdk.Ptr("The database the agent runs SQL on")
	options := []sdk.SessionConfigOption{opt}
	if m := a.modelOption(ctx, s); m != nil {
		options = append(options, *m)
	}
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: sdk.SessionModeId(current)}, options
}

// sessionPath is the file a session id names: a path, absolute or relative
// to the client's folder, or the name of a file in the sessions folder.
func sessionPath(id, cwd string, home sessionio.Home) string {
	if filepath.IsAbs(id) {
		return id
	}
	path := filepath.Join(cwd, id)
	if _, err := os.Stat(path); err != nil && !strings.ContainsRune(id, filepath.Separator) {
		return filepath.Join(home.SessionsDir(), id)
	}
	return path
}

// replay sends the session's history to the client: each question, the
// answers, and each tool call as a finished one with its SQL and result.
func (a *Agent) replay(ctx context.Context, s *session) error {
	turns, err := a.ws.Transcript(ctx, s.wsID)
	if err != nil {
		return err
	}
	info, err := a.ws.Info(ctx, s.wsID)
	if err != nil {
		return err
	}
	for _, t := range turns {
		if t.User != "" {
			a.notify(s.id, sdk.UpdateUserMessageText(t.User))
		}
		for _, step := range t.Steps {
			if step.Call == nil {
				a.say(s.id, step.Text)
				continue
			}
			a.notify(s.id, storedCall(s.cardID(step.Call.ID), step.Call, info.DatabaseType))
		}
	}
	return nil
}

// storedCall is a stored tool call as a finished tool_call.
func storedCall(id string, c *conversation.TranscriptCall, databaseType string) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if c.Failed {
		status = sdk.ToolCallStatusFailed
	}
	var content string
	switch {
	case c.Statement != nil:
		content = conversation.Fenced(c.Statement.SQL, "sql") + "\n\n" + statementMarkdown(*c.Statement)
	case c.Tool == toolRenderChart:
		content = chartMarkdown([]byte(c.Result))
	default:
		content = toolOutput(c.Summary, c.Result)
	}
	title, kind := callTitle(c.Tool, c.Arguments, c.SQL, databaseType)
	return sdk.StartToolCall(sdk.ToolCallId(id), title,
		sdk.WithStartKind(kind), sdk.WithStartStatus(status), sdk.WithStartRawInput(rawInput(c.Arguments)),
		sdk.WithStartContent(textContent(content)))
}

// announceCommands tells the client the session's slash commands.
func (a *Agent) announceCommands(s *session) {
	a.notify(s.id, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		AvailableCommands: commandList(), SessionUpdate: "available_commands_update"}})
}
