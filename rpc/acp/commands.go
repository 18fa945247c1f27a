package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
)

// commandList is the slash commands a session offers: the ones the seeds
// have.
func commandList() []sdk.AvailableCommand {
	input := func(hint string) *sdk.AvailableCommandInput {
		return &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
	}
	return []sdk.AvailableCommand{
		{Name: "history", Description: "Show the conversation's turns with their times"},
		{Name: "clear", Description: "Empty the conversation (asks first) and save it"},
		{Name: "source", Description: "Switch the data source; without a name, list them", Input: input("source name")},
		{Name: "save", Description: "Save the session, to PATH if given, for 'aiq -s PATH'", Input: input("path")},
		{Name: "sql", Description: "Run one SQL statement without the model (a write asks first)", Input: input("SQL statement")},
		{Name: "allowances", Description: "List what \"Allow always\" covers in this session; 'revoke ID' (or 'revoke all') ends one", Input: input("revoke ID")},
	}
}

// slashCommand reads a prompt that is one of the commands: its only text
// starts with /NAME. Anything else, an unknown /word included, goes to
// the model.
func slashCommand(q conversation.Question) (name, arg string, ok bool) {
	text := strings.TrimSpace(q.Query)
	if len(q.Attached) > 0 || !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name = text[1:]
	if i := strings.IndexFunc(name, unicode.IsSpace); i >= 0 {
		name, arg = name[:i], name[i+1:] // /sql's statement may start on the next line
	}
	switch name {
	case "history", "clear", "source", "save", "sql", "allowances":
		return name, strings.TrimSpace(arg), true
	}
	return "", "", false
}

// command runs a slash command; its answer is the agent's message.
func (a *Agent) command(ctx context.Context, s *session, name, arg string) (sdk.PromptResponse, error) {
	var text string
	var err error
	switch name {
	case "history":
		text, err = a.history(ctx, s)
	case "clear":
		text, err = a.clear(ctx, s)
	case "source":
		text, err = a.source(ctx, s, arg)
	case "save":
		text, err = a.save(ctx, s, arg)
	case "allowances":
		text, err = a.allowances(ctx, s, arg)
	}
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	a.say(s.id, text)
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

func (a *Agent) history(ctx context.Context, s *session) (string, error) {
	h, err := a.ws.History(ctx, s.wsID, false)
	if err != nil {
		return "", err
	}
	if len(h.Turns) == 0 {
		return "The conversation is empty.", nil
	}
	var b strings.Builder
	for _, t := range h.Turns {
		who := "aiq"
		if t.Role == string(conversation.RoleUser) {
			who = "You"
		}
		fmt.Fprintf(&b, "**%s** · %s\n\n%s\n\n", who, t.Timestamp.Local().Format(time.DateTime), t.Content)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// clear asks through session/request_permission, then empties the
// conversation and saves it. Anything but an explicit yes keeps it.
func (a *Agent) clear(ctx context.Context, s *session) (string, error) {
	a.mu.Lock()
	s.commands++
	id := sdk.ToolCallId(fmt.Sprintf("clear_%d", s.commands))
	a.mu.Unlock()
	title := "Clear the conversation"
	a.notify(s.id, sdk.StartToolCall(id, title, sdk.WithStartKind(sdk.ToolKindDelete), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	options := []sdk.PermissionOption{
		{OptionId: "keep", Name: "Keep the conversation", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: "clear", Name: "Clear it", Kind: sdk.PermissionOptionKindAllowOnce},
	}
	call := sdk.ToolCallUpdate{ToolCallId: id, Title: &title, Content: textContent("Empty this conversation, in the editor and in its session file?")}
	choice, err := a.askPermission(ctx, s, call, options)
	if err != nil || choice != "clear" {
		a.notify(s.id, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
		if err != nil {
			return "", err
		}
		return "The conversation was kept.", nil
	}
	saved, err := a.ws.Clear(ctx, s.wsID)
	if err != nil {
		a.notify(s.id, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
		return "", err
	}
	a.notify(s.id, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)))
	return "The conversation was cleared and saved to " + saved.Path + ".", nil
}

func (a *Agent) source(ctx context.Context, s *session, name string) (string, error) {
	info, err := a.ws.Info(ctx, s.wsID)
	if err != nil {
		return "", err
	}
	if name == "" {
		return a.sourceList(ctx, info.Source), nil
	}
	info, err = a.setSource(ctx, s, name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The data source is now %s (%s).", info.Source, info.DatabaseType), nil
}

// sourceList lists the configured sources, current marked, and says how to
// pick one.
func (a *Agent) sourceList(ctx context.Context, current string) string {
	sources, err := a.ws.Sources()
	if err != nil {
		return fmt.Sprintf("The data sources cannot be read: %v", err)
	}
	if len(sources) == 0 {
		return fmt.Sprintf("No data source is configured: add one to %s.", a.opts.Home.SourcesPath())
	}
	var b strings.Builder
	b.WriteString("The data sources:\n\n")
	for _, src := range sources {
		mark := ""
		if src.Name == current {
			mark = " (this session's)"
		}
		fmt.Fprintf(&b, "- `%s`: %s%s\n", src.Name, src.Type, mark)
	}
	b.WriteString("\nPick one with `/source NAME`.")
	return b.String()
}

// save saves the session, to path when given (relative to the client's
// folder), and says how to continue it in the CLI.
func (a *Agent) save(ctx context.Context, s *session, path string) (string, error) {
	if path != "" && !filepath.IsAbs(path) && s.cwd != "" {
		path = filepath.Join(s.cwd, path)
	}
	saved, err := a.ws.Save(ctx, s.wsID, path)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.made = "" // saved on purpose: never removed as unused
	s.mu.Unlock()
	return fmt.Sprintf("Saved to %s. %s", saved.Path, saved.Hint), nil
}
