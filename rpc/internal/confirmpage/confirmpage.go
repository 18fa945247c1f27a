// Package confirmpage asks the user to confirm one statement through a
// page in their browser, for a front end whose client cannot ask them (an
// MCP host without elicitation, or one that answers for its user). The
// page is served once, on 127.0.0.1, at a URL whose path holds a secret
// that only the browser is given: not the client, not its model, not the
// log. Only the page's own form answers it (the secret, a nonce in the
// form, the Origin of the page, POST, one answer), and Reject is its
// default.
//
// The page's Referrer-Policy is same-origin, not no-referrer: under
// no-referrer a browser sends "Origin: null" with the form's POST, and
// the Origin check, which must see the page's own origin, would refuse
// every real press. same-origin still sends no Referer (which would
// hold the secret) to any other site.
package confirmpage

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Statement is what the page shows the user.
type Statement struct {
	SQL string
	// Source names the data source ("prod (postgresql)"), Label is its
	// label from sources.yaml ("production"), if any.
	Source string
	Label  string
	// What says what the statement does and why it asks ("It writes to
	// the database"); DryRun what its dry run counted, if anything.
	What   string
	DryRun string
	// Masked says what each masked token of SQL stands for: the page is
	// the user's, never the model's.
	Masked []Masked
}

// Masked is a masked token and its value, as text.
type Masked struct{ Token, Value string }

// Opener opens url in the user's browser, and returns when the opener has
// done so (a browser that stays in the foreground may never return).
type Opener func(ctx context.Context, url string) error

// ErrNoBrowser is why the page could not be shown: no browser could be
// opened.
var ErrNoBrowser = errors.New("no browser could be opened")

// ErrTimeout is the answer of a page no one answered in time.
var ErrTimeout = errors.New("no answer came in time")

// Ask serves the page of st, opens it with open and waits for the user's
// answer: true for "Allow once". An error means no answer: ErrNoBrowser
// (wrapped, with the opener's reason) when the page could not be opened
// and nobody fetched it, ErrTimeout after timeout, or ctx's error.
func Ask(ctx context.Context, st Statement, open Opener, timeout time.Duration) (bool, error) {
	p, err := newPage(st)
	if err != nil {
		return false, err
	}
	defer p.close()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	opened := make(chan error, 1)
	go func() { opened <- open(ctx, p.url()) }()
	for {
		select {
		case allowed := <-p.answer:
			return allowed, nil
		case err := <-opened:
			if err != nil && !p.fetched() {
				return false, fmt.Errorf("%w: %v", ErrNoBrowser, err)
			}
			opened = nil // opened, or fetched anyway: wait for the answer
		case <-ctx.Done():
			if err := parent.Err(); err != nil {
				return false, err
			}
			return false, fmt.Errorf("%w (%s)", ErrTimeout, timeout)
		}
	}
}

// page is one statement's page and its server.
type page struct {
	st     Statement
	secret string // the path, without its slash
	nonce  string // the form's hidden field
	addr   string // 127.0.0.1:port
	srv    *http.Server
	answer chan bool

	mu       sync.Mutex
	answered bool
	seen     bool // the page was fetched
}

func newPage(st Statement) (*page, error) {
	secret, nonce := randomText(), randomText()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the confirmation page: %w", err)
	}
	p := &page{st: st, secret: secret, nonce: nonce, addr: l.Addr().String(), answer: make(chan bool, 1)}
	// The server's own complaints (a client that sent garbage) would only
	// fill the host's log of this process.
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: log.New(io.Discard, "", 0)}
	go p.srv.Serve(l)
	return p, nil
}

// randomText is 256 random bits as text: a secret no one guesses.
func randomText() string { return rand.Text() + rand.Text() }

func (p *page) url() string { return "http://" + p.addr + "/" + p.secret }

func (p *page) origin() string { return "http://" + p.addr }

func (p *page) fetched() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen
}

// close stops the server, after the answer's own response is written.
func (p *page) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if p.srv.Shutdown(ctx) != nil {
		p.srv.Close()
	}
}

// ServeHTTP serves the page at its secret path and takes the answer of its
// own form; anything else gets an error page and changes nothing.
func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	switch {
	case r.Host != p.addr: // another name that resolves here: DNS rebinding
		http.Error(w, "This page is served only as "+p.addr+".", http.StatusMisdirectedRequest)
		return
	case !same(r.URL.Path, "/"+p.secret):
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		p.show(w)
	case http.MethodPost:
		p.take(w, r)
	default:
		h.Set("Allow", "GET, POST")
		http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
	}
}

func (p *page) show(w http.ResponseWriter) {
	p.mu.Lock()
	answered := p.answered
	p.seen = true
	p.mu.Unlock()
	if answered {
		http.Error(w, "This statement has been answered; the page is no longer in use.", http.StatusGone)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pageTemplate.Execute(w, struct {
		Statement
		Action, Nonce string
	}{shown(p.st), "/" + p.secret, p.nonce})
}

// shown is st as the page shows it: the characters that change how text
// reads without being seen (bidirectional overrides, zero-width ones,
// controls other than new lines and tabs) are written as \u{...}, so that
// the statement the user reads is the one that runs ("Trojan Source").
func shown(st Statement) Statement {
	st.SQL, st.Source, st.Label = Visible(st.SQL), Visible(st.Source), Visible(st.Label)
	masked := make([]Masked, len(st.Masked))
	for i, m := range st.Masked {
		masked[i] = Masked{Token: Visible(m.Token), Value: Visible(m.Value)}
	}
	st.Masked = masked
	return st
}

// Visible returns s with its invisible characters written out, for a
// statement shown to the user to confirm, here or in a host's dialog.
func Visible(s string) string {
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "\\u{%04X}", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func invisible(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// take takes the answer of the page's own form, once. The POST must come
// from the page's origin, as the browser says it: Origin exactly the
// page's, and Sec-Fetch-Site, which browsers send and scripts cannot
// forge there, same-origin when it is sent at all.
func (p *page) take(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") != p.origin() || !sameSite(r.Header) {
		http.Error(w, "Only the page's own form can answer it.", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.ParseForm() != nil ||
		!same(r.PostForm.Get("nonce"), p.nonce) {
		http.Error(w, "Only the page's own form can answer it.", http.StatusForbidden)
		return
	}
	allowed := r.PostForm.Get("decision") == "allow_once" // anything else, or nothing, rejects
	p.mu.Lock()
	first := !p.answered
	p.answered = true
	p.mu.Unlock()
	if !first {
		http.Error(w, "This statement has been answered already.", http.StatusGone)
		return
	}
	p.answer <- allowed
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	doneTemplate.Execute(w, allowed)
}

// sameSite reports whether a request's Sec-Fetch-Site, if it has one,
// says it came from the page's own origin.
func sameSite(h http.Header) bool {
	v, ok := h["Sec-Fetch-Site"]
	return !ok || len(v) == 1 && v[0] == "same-origin"
}

// same compares a secret in constant time.
func same(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aiq: run this statement?</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:16px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;background:#fff}
pre{background:#f4f4f4;border:1px solid #ccc;padding:.75rem;white-space:pre-wrap;word-break:break-word;font-size:15px}
.label{font-weight:600;color:#a40000}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
button{font-size:1rem;padding:.5rem 1.25rem;margin-right:1rem}
button.reject{font-weight:600}
</style></head><body>
<h1>Run this statement?</h1>
<p>An agent asks aiq to run this statement on the data source <b>{{.Source}}</b>{{if .Label}} (<span class="label">{{.Label}}</span>){{end}}:</p>
<pre>{{.SQL}}</pre>
<p>{{.What}}</p>
{{if .DryRun}}<p>{{.DryRun}}</p>{{end}}
{{if .Masked}}<p>The masked values in it stand for:</p>
<table><tr><th>token</th><th>value</th></tr>{{range .Masked}}<tr><td><code>{{.Token}}</code></td><td><code>{{.Value}}</code></td></tr>{{end}}</table>{{end}}
<p>It runs only if you allow it, this once.</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="nonce" value="{{.Nonce}}">
<button class="reject" type="submit" name="decision" value="reject" autofocus>Reject</button>
<button type="submit" name="decision" value="allow_once">Allow once</button>
</form>
</body></html>
`))

var doneTemplate = template.Must(template.New("done").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aiq: {{if .}}allowed{{else}}rejected{{end}}</title></head>
<body style="font:16px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem">
<p>{{if .}}Allowed once: aiq runs the statement now.{{else}}Rejected: the statement does not run.{{end}} You can close this page.</p>
</body></html>
`))
