package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
)

// method answers one kind of request; name is the method's own.
type method func(ctx context.Context, a *Agent, name string, params json.RawMessage) (any, error)

// methodTable lists what the agent answers.
func methodTable() map[string]method {
	return map[string]method{
		sdk.AgentMethodInitialize:             typed(initialize),
		sdk.AgentMethodAuthenticate:           typed(authenticate),
		sdk.AgentMethodSessionNew:             typed(sessionNew),
		sdk.AgentMethodSessionLoad:            typed(sessionLoad),
		sdk.AgentMethodSessionPrompt:          typed(sessionPrompt),
		sdk.AgentMethodSessionCancel:          typed(sessionCancel),
		sdk.AgentMethodSessionSetMode:         typed(sessionSetMode),
		sdk.AgentMethodSessionSetConfigOption: typed(sessionSetConfigOption),
		sdk.AgentMethodSessionList:            typed(sessionList),
		sdk.AgentMethodSessionClose:           typed(sessionClose),
	}
}

func methodNames(table map[string]method) []string {
	return slices.Sorted(maps.Keys(table))
}

// invalidParams is the error of a request whose params are wrong.
type invalidParams struct {
	method, problem string
}

func (e *invalidParams) Error() string {
	return fmt.Sprintf("invalid params for %s: %s", e.method, e.problem)
}

// typed decodes and validates a request's params, with the SDK's types,
// before fn sees them, so that every bad param gets the same kind of
// answer.
func typed[P any, PP interface {
	*P
	Validate() error
}](fn func(ctx context.Context, a *Agent, p P) (any, error)) method {
	return func(ctx context.Context, a *Agent, name string, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, &invalidParams{name, err.Error()}
		}
		if err := PP(&p).Validate(); err != nil {
			return nil, &invalidParams{name, err.Error()}
		}
		return fn(ctx, a, p)
	}
}

// decodeParams reads params, which must be an object or absent.
func decodeParams(raw json.RawMessage, v any) error {
	text := bytes.TrimSpace(raw)
	if len(text) == 0 || string(text) == "null" {
		text = []byte("{}")
	}
	if text[0] != '{' {
		return errors.New("params must be an object")
	}
	err := json.Unmarshal(text, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return fmt.Errorf("%s must be %s, not %s", typeErr.Field, kindName(typeErr.Type.Kind()), typeErr.Value)
	}
	return err
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Bool:
		return "a boolean"
	}
	return "a number"
}

func initialize(ctx context.Context, a *Agent, p sdk.InitializeRequest) (any, error) {
	return sdk.InitializeResponse{
		// Version 1 whatever the client asked: it is the one this agent
		// speaks, and the client decides whether it can go on.
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: a.opts.Name, Title: sdk.Ptr("AIQ"), Version: a.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:  &sdk.SessionListCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// authenticate has nothing to check: the agent offers no auth methods,
// and the model's key is in the home's config.yaml.
func authenticate(ctx context.Context, a *Agent, p sdk.AuthenticateRequest) (any, error) {
	return sdk.AuthenticateResponse{}, nil
}

// sessionNew opens a session on the default source and saves it at once:
// its file's path is its id, which any client, and `aiq -s`, can open.
// mcpServers are ignored: the agent's tools are its database's.
func sessionNew(ctx context.Context, a *Agent, p sdk.NewSessionRequest) (any, error) {
	a.mu.Lock()
	resume := a.resume
	a.resume = ""
	a.mu.Unlock()
	if resume != "" {
		return a.resumeSession(ctx, resume, p.Cwd)
	}
	info, err := a.ws.New(ctx, "")
	if err != nil {
		return nil, err
	}
	saved, err := a.ws.Save(ctx, info.SessionID, "")
	if err != nil {
		a.ws.CloseSession(ctx, info.SessionID)
		return nil, err
	}
	s := &session{id: sdk.SessionId(saved.Path), wsID: info.SessionID, cwd: p.Cwd, made: saved.Path}
	return a.newResponse(ctx, a.add(s))
}

// resumeSession opens the -s file as the new session.
func (a *Agent) resumeSession(ctx context.Context, path, cwd string) (any, error) {
	info, err := a.ws.Load(ctx, path)
	if err != nil {
		return nil, err
	}
	for _, w := range info.Warnings {
		a.log.Warn("restore session", "path", info.Path, "warning", w)
	}
	return a.newResponse(ctx, a.add(&session{id: sdk.SessionId(info.Path), wsID: info.SessionID, cwd: cwd}))
}

func (a *Agent) newResponse(ctx context.Context, s *session) (any, error) {
	modes, options := a.sourceChoices(ctx, s)
	match, _ := json.Marshal(map[string]sdk.SessionId{"sessionId": s.id})
	// The client learns the session's id from this response, so the
	// commands go out after it.
	a.out.onResponse(bytes.Trim(match, "{}"), func() { a.announceCommands(s) })
	return sdk.NewSessionResponse{SessionId: s.id, Modes: modes, ConfigOptions: options}, nil
}

// add makes s the session its id names, closing the one it replaces.
func (a *Agent) add(s *session) *session {
	a.mu.Lock()
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.mu.Unlock()
	if old != nil {
		a.ws.CloseSession(context.Background(), old.wsID)
	}
	return s
}

// sessionLoad opens the session file the id names and replays its history
// before it answers, as ACP requires.
func sessionLoad(ctx context.Context, a *Agent, p sdk.LoadSessionRequest) (any, error) {
	if p.SessionId == "" {
		return nil, &invalidParams{sdk.AgentMethodSessionLoad, "sessionId is required: the path of a session file"}
	}
	if old, err := a.session(p.SessionId); err == nil {
		// Opened again: from its file, which holds every completed turn.
		if _, err := a.ws.CloseSession(ctx, old.wsID); err != nil {
			return nil, err
		}
		a.mu.Lock()
		delete(a.sessions, p.SessionId)
		a.mu.Unlock()
	}
	info, err := a.ws.Load(ctx, sessionPath(string(p.SessionId), p.Cwd, a.opts.Home))
	if err != nil {
		return nil, err
	}
	for _, w := range info.Warnings {
		a.log.Warn("load session", "path", info.Path, "warning", w)
	}
	s := a.add(&session{id: p.SessionId, wsID: info.SessionID, cwd: p.Cwd})
	if err := a.replay(ctx, s); err != nil {
		return nil, err
	}
	a.ws.ReturnMemory() // the replay's notifications are garbage now
	a.announceCommands(s)
	modes, options := a.sourceChoices(ctx, s)
	return sdk.LoadSessionResponse{Modes: modes, ConfigOptions: options}, nil
}

// sessionCancel stops the turn that runs on the session: the model's
// stream is closed, running SQL cancelled, and the prompt answers
// "cancelled" with the session as it was.
func sessionCancel(ctx context.Context, a *Agent, p sdk.CancelNotification) (any, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil, err
	}
	s.stop()
	return nil, nil
}

func sessionSetMode(ctx context.Context, a *Agent, p sdk.SetSessionModeRequest) (any, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil, err
	}
	if _, err := a.setSource(ctx, s, sourceOfChoice(string(p.ModeId))); err != nil {
		return nil, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

func sessionSetConfigOption(ctx context.Context, a *Agent, p sdk.SetSessionConfigOptionRequest) (any, error) {
	choice, ok := p.ValueId, p.ValueId != nil
	if ok && choice.ConfigId == configModel {
		return a.setModel(ctx, choice)
	}
	if !ok || choice.ConfigId != configSource {
		return nil, &invalidParams{sdk.AgentMethodSessionSetConfigOption, fmt.Sprintf("the options are %q, a data source's name, and %q, a model's", configSource, configModel)}
	}
	s, err := a.session(choice.SessionId)
	if err != nil {
		return nil, err
	}
	if _, err := a.setSource(ctx, s, sourceOfChoice(string(choice.Value))); err != nil {
		return nil, err
	}
	_, options := a.sourceChoices(ctx, s)
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: options}, nil
}

// setSource moves the session to another source and tells the client's
// pickers.
func (a *Agent) setSource(ctx context.Context, s *session, source string) (conversation.Info, error) {
	info, err := a.ws.SetSource(ctx, s.wsID, source)
	if err != nil {
		return conversation.Info{}, err
	}
	modes, options := a.sourceChoices(ctx, s)
	if modes != nil {
		a.notify(s.id, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{
			CurrentModeId: modes.CurrentModeId, SessionUpdate: "current_mode_update"}})
	}
	if options != nil {
		a.notify(s.id, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{
			ConfigOptions: options, SessionUpdate: "config_option_update"}})
	}
	return info, nil
}

// sessionList lists the saved sessions, newest first: their ids are
// their files, which session/load opens. Sessions are the home's, not a
// project's, so each is listed with the folder the client asked about.
func sessionList(ctx context.Context, a *Agent, p sdk.ListSessionsRequest) (any, error) {
	list, err := conversation.ListSessions(a.opts.Home.SessionsDir())
	if err != nil {
		return nil, err
	}
	cwd := a.opts.Home.SessionsDir()
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	sessions := []sdk.SessionInfo{}
	for _, l := range list {
		if l.Error != "" {
			continue // cannot be loaded either
		}
		info := sdk.SessionInfo{SessionId: sdk.SessionId(l.Path), Cwd: cwd}
		if title := firstLine(l.FirstQuestion, ""); title != "" {
			info.Title = sdk.Ptr(title)
		}
		if !l.Updated.IsZero() {
			info.UpdatedAt = sdk.Ptr(l.Updated.UTC().Format(time.RFC3339))
		}
		sessions = append(sessions, info)
	}
	return sdk.ListSessionsResponse{Sessions: sessions}, nil
}

// sessionClose stops what runs on the session, saves it if it changed and
// forgets it.
func sessionClose(ctx context.Context, a *Agent, p sdk.CloseSessionRequest) (any, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return nil, err
	}
	select {
	case <-s.stop():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.removeIfUnused(s)
	if _, err := a.ws.CloseSession(ctx, s.wsID); err != nil && !errors.Is(err, conversation.ErrUnknownSession) {
		return nil, err
	}
	a.mu.Lock()
	if a.sessions[p.SessionId] == s {
		delete(a.sessions, p.SessionId)
	}
	a.mu.Unlock()
	return sdk.CloseSessionResponse{}, nil
}
