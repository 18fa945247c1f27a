package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// defaultStepTimeout bounds each check of doctor.
const defaultStepTimeout = 30 * time.Second

func doctorFlags(fs *flag.FlagSet, f *flags) {
	fs.BoolVar(&f.json, "json", false, "print the checks as JSON")
	f.stepTimeout = defaultStepTimeout
	fs.Var(durationFlag{&f.stepTimeout}, "step-timeout", "give up on a check that takes longer than `DURATION`")
}

// The outcomes of a check.
const (
	checkOK   = "ok"
	checkFail = "fail"
	checkSkip = "skip"
)

// check is one line of doctor's report.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Fix says what to do, when the check failed.
	Fix string `json:"fix,omitempty"`
}

// doctor runs the checks in order; a check that needs what an earlier one
// could not give is skipped.
type doctor struct {
	home    sessionio.Home
	getenv  func(string) string
	timeout time.Duration
	checks  []check

	cfg       sessionio.Config
	cfgOK     bool
	sources   []sessionio.Source
	model     *llm.Model
	reachable bool
	reasoning []string // the reasoning fields seen
}

// runDoctor checks the set-up, one line a check, and exits 0 when every
// check passed.
func runDoctor(ctx context.Context, e env, f flags, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(e.stderr, "aiq-rpc doctor: takes no arguments, got %q; run 'aiq-rpc doctor --help' for the flags\n", args[0])
		return 2
	}
	d := &doctor{getenv: e.getenv, timeout: f.stepTimeout}
	d.run(ctx, f)
	for i := range d.checks {
		d.checks[i].Detail, d.checks[i].Fix = redactURLs(d.checks[i].Detail), redactURLs(d.checks[i].Fix)
	}
	failed := slices.ContainsFunc(d.checks, func(c check) bool { return c.Status == checkFail })
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			OK     bool    `json:"ok"`
			Checks []check `json:"checks"`
		}{!failed, d.checks})
	} else {
		for _, c := range d.checks {
			line := fmt.Sprintf("%-4s  %s", c.Status, c.Name)
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			if c.Fix != "" {
				line += " -> " + c.Fix
			}
			fmt.Fprintln(e.stdout, line)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// urlInText finds the URLs of a line: the configured endpoint, and those
// its client's errors quote.
var urlInText = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// secretQuery names the query parameters that carry a credential.
var secretQuery = regexp.MustCompile(`(?i)key|token|secret|pass|auth|sig|credential`)

// redactURLs hides the credentials of every URL in text: a password (a
// user may keep one in llm.url), a user name that comes without one (a
// token is often given so: https://TOKEN@host), and the values of query
// parameters that name a key or a token.
func redactURLs(text string) string {
	return urlInText.ReplaceAllStringFunc(text, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return raw
		}
		changed := false
		if _, ok := u.User.Password(); ok {
			u.User, changed = url.UserPassword(u.User.Username(), "xxxxx"), true
		} else if u.User != nil && u.User.Username() != "" {
			u.User, changed = url.User("xxxxx"), true
		}
		q := u.Query()
		for name := range q {
			if secretQuery.MatchString(name) {
				q.Set(name, "xxxxx")
				changed = true
			}
		}
		if !changed {
			return raw
		}
		u.RawQuery = q.Encode()
		return u.String()
	})
}

func (d *doctor) run(ctx context.Context, f flags) {
	d.step(ctx, "home folder", func(ctx context.Context) (string, string, error) {
		home, err := findHome(env{getenv: d.getenv}, f)
		if err != nil {
			return "", "set AIQ_HOME or pass --home DIR", err
		}
		d.home = home
		if fi, err := os.Stat(home.Dir); err != nil || !fi.IsDir() {
			return "", "create it, or point --home or AIQ_HOME at the AIQ CLI's folder", fmt.Errorf("%s is not a folder", home.Dir)
		}
		return home.Dir, "", nil
	})
	if d.home.Dir == "" {
		d.skipRest("the home folder is not known")
		return
	}
	d.step(ctx, "config.yaml", func(ctx context.Context) (string, string, error) {
		cfg, err := d.home.LoadConfig(d.getenv)
		if err != nil {
			return "", "correct the file at the line and field named", err
		}
		d.cfg, d.cfgOK = cfg, true
		if !cfg.LLM.Configured() {
			return "no model configured", "", nil
		}
		return fmt.Sprintf("model %s at %s", cfg.LLM.Model, cfg.LLM.URL), "", nil
	})
	d.step(ctx, "sources.yaml", func(ctx context.Context) (string, string, error) {
		sources, err := conversation.ConfiguredSources(d.home)
		if err != nil {
			return "", "correct the file at the line and field named", err
		}
		d.sources = sources
		names := make([]string, len(sources))
		for i, s := range sources {
			names[i] = s.Name
		}
		return strings.Join(names, ", "), "", nil
	})
	d.modelChecks(ctx)
	for _, src := range d.sources {
		d.step(ctx, "source "+src.Name, func(ctx context.Context) (string, string, error) {
			return d.checkSource(ctx, src)
		})
	}
}

// modelChecks checks the endpoint: it answers, it lists the model, a
// streamed reply arrives, the model calls a tool, and which reasoning
// field it uses.
func (d *doctor) modelChecks(ctx context.Context) {
	names := []string{"the endpoint answers", "the model is listed", "a streamed reply arrives", "the model calls a tool", "reasoning"}
	switch {
	case !d.cfgOK:
		d.skip(names, "config.yaml could not be read")
		return
	case !d.cfg.LLM.Configured():
		d.fail(names[0], "no model is configured", "set llm.url, llm.model and llm.api_key in "+d.home.ConfigPath())
		d.skip(names[1:], "no model is configured")
		return
	}
	// The step's timeout bounds each request; the client's own, longer,
	// never trips first, so that the line says which step timed out.
	m, err := llm.New(llm.Config{URL: d.cfg.LLM.URL, APIKey: d.cfg.LLM.APIKey, Model: d.cfg.LLM.Model, Timeout: 2 * d.timeout, MaxTries: 1})
	if err != nil {
		d.fail(names[0], err.Error(), "correct llm.url or llm.model in "+d.home.ConfigPath())
		d.skip(names[1:], "the endpoint is not usable")
		return
	}
	d.model = m
	var listed []string
	var listErr error
	d.step(ctx, names[0], func(ctx context.Context) (string, string, error) {
		listed, listErr = m.ListModels(ctx)
		if errors.Is(listErr, llm.ErrUnreachable) {
			return "", "check llm.url in config.yaml, and that the server runs", listErr
		}
		d.reachable = true
		return d.cfg.LLM.URL, "", nil
	})
	if !d.reachable {
		d.skip(names[1:], "the endpoint did not answer")
		return
	}
	d.step(ctx, names[1], func(ctx context.Context) (string, string, error) {
		switch {
		case listErr != nil:
			return "", "", errSkip{"the endpoint does not list its models: " + listErr.Error()}
		case !slices.Contains(listed, m.Name()):
			return "", "set llm.model in config.yaml to one of the endpoint's models", fmt.Errorf("%s is not among the endpoint's models: %s", m.Name(), strings.Join(listed, ", "))
		}
		return m.Name(), "", nil
	})
	d.step(ctx, names[2], func(ctx context.Context) (string, string, error) {
		req := conversation.Request{Messages: []conversation.Message{
			{Role: conversation.RoleSystem, Content: "You are a connectivity check. Answer in one word."},
			{Role: conversation.RoleUser, Content: "Say OK."}}}
		reply, err := m.Complete(ctx, req, nil)
		if err != nil {
			return "", "check llm.api_key and llm.model in config.yaml", err
		}
		d.noteReasoning(reply)
		if strings.TrimSpace(reply.Content+reply.Reasoning) == "" && len(reply.ToolCalls) == 0 {
			return "", "try another model", errors.New("the reply was empty")
		}
		return fmt.Sprintf("%q", oneLine(strings.TrimSpace(reply.Content), 40)), "", nil
	})
	d.step(ctx, names[3], func(ctx context.Context) (string, string, error) {
		return d.checkToolCall(ctx)
	})
	d.step(ctx, names[4], func(ctx context.Context) (string, string, error) {
		if len(d.reasoning) == 0 {
			return "none seen", "", nil
		}
		return strings.Join(d.reasoning, ", ") + "; sent back on tool calls", "", nil
	})
}

// doctorTool is the tiny tool the model is asked to call.
const doctorTool = "aiq_doctor_ping"

func (d *doctor) checkToolCall(ctx context.Context) (string, string, error) {
	req := conversation.Request{
		Messages: []conversation.Message{
			{Role: conversation.RoleSystem, Content: "You are a connectivity check. Use the tools you are given."},
			{Role: conversation.RoleUser, Content: "Call the tool " + doctorTool + " now, with no arguments."}},
		Tools: []conversation.ToolSpec{{Name: doctorTool, Description: "Answers pong. Call it when asked to."}},
	}
	reply, err := d.model.Complete(ctx, req, nil)
	if err != nil {
		return "", "check that the endpoint supports tools (function calling) for this model", err
	}
	d.noteReasoning(reply)
	for _, c := range reply.ToolCalls {
		if c.Function.Name == doctorTool {
			return "called " + doctorTool, "", nil
		}
	}
	return "", "use a model that supports tool calls (every database question needs them), or enable the server's tool-call parser",
		errors.New("the model answered without calling the tool")
}

func (d *doctor) noteReasoning(reply conversation.Reply) {
	if strings.TrimSpace(reply.Reasoning) == "" {
		return
	}
	field := reply.ReasoningField
	if field == "" {
		field = "<think> in the content"
	}
	if !slices.Contains(d.reasoning, field) {
		d.reasoning = append(d.reasoning, field)
	}
}

func (d *doctor) checkSource(ctx context.Context, src sessionio.Source) (string, string, error) {
	if demo := tools.DemoSource(d.home.Dir); src.Name == demo.Name && src.Database == demo.Database {
		if _, err := os.Stat(src.Database); err != nil {
			return "the demo database, made on first use", "", nil
		}
	}
	fix := "check the entry of " + src.Name + " in " + d.home.SourcesPath() + ", and that its server runs"
	db, err := tools.Open(ctx, src, engine.Options{StatementTimeout: d.timeout})
	if err != nil {
		return "", fix, err
	}
	defer db.Close()
	res := db.Run(ctx, "SELECT 1", false)
	if res.Status != engine.StatusSuccess {
		return "", fix, errors.New(res.Error)
	}
	return src.Type + ", SELECT 1 answered", "", nil
}

// errSkip marks a check that could not be made, which is not a failure.
type errSkip struct{ why string }

func (e errSkip) Error() string { return e.why }

// step runs one check with its own timeout.
func (d *doctor) step(ctx context.Context, name string, fn func(ctx context.Context) (detail, fix string, err error)) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	type outcome struct {
		detail, fix string
		err         error
	}
	done := make(chan outcome, 1)
	go func() {
		detail, fix, err := fn(ctx)
		done <- outcome{detail, fix, err}
	}()
	var o outcome
	timedOut := false
	select {
	case o = <-done:
		timedOut = o.err != nil && ctx.Err() != nil
	case <-ctx.Done():
		// A step that does not stop with its context is left behind.
		timedOut = true
	}
	var skip errSkip
	switch {
	case timedOut:
		d.fail(name, fmt.Sprintf("timed out after %s", d.timeout), "check that the server answers; --step-timeout gives it longer")
	case errors.As(o.err, &skip):
		d.checks = append(d.checks, check{Name: name, Status: checkSkip, Detail: skip.why})
	case o.err != nil:
		d.fail(name, o.err.Error(), o.fix)
	default:
		d.checks = append(d.checks, check{Name: name, Status: checkOK, Detail: o.detail})
	}
}

func (d *doctor) fail(name, detail, fix string) {
	d.checks = append(d.checks, check{Name: name, Status: checkFail, Detail: detail, Fix: fix})
}

func (d *doctor) skip(names []string, why string) {
	for _, n := range names {
		d.checks = append(d.checks, check{Name: n, Status: checkSkip, Detail: why})
	}
}

func (d *doctor) skipRest(why string) {
	d.skip([]string{"config.yaml", "sources.yaml", "the endpoint answers", "the model is listed",
		"a streamed reply arrives", "the model calls a tool", "reasoning"}, why)
}
