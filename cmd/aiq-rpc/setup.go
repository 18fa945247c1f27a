package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/rpc/editor"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// app is a configured server before it serves.
type app struct {
	home   sessionio.Home
	ws     *conversation.Workspace
	server *editor.Server
	live   *liveConfig
	log    *slog.Logger
	close  func()
}

// setupOptions say how a command uses the server.
type setupOptions struct {
	// clientShowsWarnings says that the client prints what the server
	// tells it, warnings and errors, so that a log on stderr would say each
	// twice: the log then goes only to --log-file.
	clientShowsWarnings bool
}

// setup reads the home folder and restores the -s session. Problems that
// still let the server run (a bad config, a broken session file) are
// logged and reported to the client after initialize.
func setup(ctx context.Context, e env, f flags, o setupOptions) (*app, error) {
	logger, closeLog, err := openLog(e.stderr, f.logFile, o.clientShowsWarnings)
	if err != nil {
		return nil, err
	}
	home, err := findHome(e, f)
	if err != nil {
		closeLog()
		return nil, err
	}
	// Saves killed halfway leave their temporary files; ten minutes is far
	// longer than any save takes.
	if n, err := sessionio.RemoveStaleTemps(home.SessionsDir(), 10*time.Minute, time.Now()); err != nil {
		logger.Warn("clean the sessions folder", "err", err)
	} else if n > 0 {
		logger.Info("removed temporary files of interrupted saves", "count", n)
	}
	var warnings []string
	live, cfgErr := newLiveConfig(home, e.getenv, f.modelTimeout)
	if cfgErr != nil {
		warnings = append(warnings, fmt.Sprintf("The model configuration could not be read: %v", cfgErr))
	}
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          home,
		Model:         live.Model,
		Sources:       live.Sources,
		DefaultSource: f.source,
		HistoryLimit:  f.historyLimit,
		SQL:           engine.Options{StatementTimeout: f.sqlTimeout},
	})
	if f.session != "" {
		info, err := ws.Load(ctx, f.session)
		if err != nil {
			logger.Info("restore the -s session", "err", err)
			warnings = append(warnings, "The -s session could not be restored, so a new session starts. "+conversation.UserMessage(err))
		} else {
			ws.SetDefault(info.SessionID)
			warnings = append(warnings, info.Warnings...)
		}
	}
	for _, w := range warnings {
		logger.Warn(w)
	}
	server := editor.NewServer(ws, editor.Options{
		Name: "aiq-rpc", Version: version(), Home: home,
		ModelConfigured: live.configured, CheckConfig: live.check,
		StartupWarnings: warnings, Log: logger,
	})
	live.subscribe(func(ch configChange) {
		for _, p := range ch.Problems {
			logger.Warn(p)
		}
		server.ConfigChanged(ch)
	})
	return &app{home: home, ws: ws, server: server, live: live, log: logger, close: func() { ws.Close(); closeLog() }}, nil
}

// findHome is --home, else the home FindHome finds.
func findHome(e env, f flags) (sessionio.Home, error) {
	if f.home != "" {
		return sessionio.Home{Dir: f.home}, nil
	}
	return sessionio.FindHome(e.getenv)
}

// modelFactory returns the model of one configuration: the configured
// endpoint, or an error that says how to configure one. One Model serves
// every turn until the configuration changes (see liveConfig), and keeps
// what it learnt from the last request (see llm.Model).
func modelFactory(cfg sessionio.LLM, cfgErr error, timeout time.Duration) func() (conversation.Model, error) {
	fail := func(err error) func() (conversation.Model, error) {
		return func() (conversation.Model, error) { return nil, err }
	}
	switch {
	case cfgErr != nil:
		return fail(fmt.Errorf("%w: %w", conversation.ErrNoModel, cfgErr))
	case !cfg.Configured():
		return fail(conversation.ErrNoModel)
	}
	m, err := llm.New(llm.Config{URL: cfg.URL, APIKey: cfg.APIKey, Model: cfg.Model, Timeout: timeout})
	if err != nil {
		return fail(fmt.Errorf("%w: %w", conversation.ErrNoModel, err))
	}
	return func() (conversation.Model, error) { return m, nil }
}

// openLog logs to path, else to stderr unless quiet.
func openLog(stderr io.Writer, path string, quiet bool) (*slog.Logger, func(), error) {
	switch {
	case path == "" && quiet:
		return slog.New(slog.DiscardHandler), func() {}, nil
	case path == "":
		return slog.New(slog.NewTextHandler(stderr, nil)), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log file: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}
