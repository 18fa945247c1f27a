package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"

	"github.com/aiq/aiq-rpc/conversation"
)

// runAsk runs one turn through the server, as an editor would, over an
// in-process pipe pair: the terminal is one more client, not a second code
// path.
func runAsk(ctx context.Context, e env, f flags, args []string) int {
	question, err := askQuestion(e.stdin, args)
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc ask: %v\n", err)
		return 2
	}
	a, err := setup(ctx, e, f)
	if err != nil {
		fmt.Fprintf(e.stderr, "aiq-rpc ask: %v\n", err)
		return 1
	}
	defer a.close()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan int, 1)
	go func() { served <- a.server.Serve(ctx, toServer, fromServer) }()
	c := &askClient{out: e.stdout, stderr: e.stderr, json: f.json, confirmIn: confirmInput(e.stdin, args)}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeConn{toClient, fromClient}))
	conn.Go(ctx, c.handle)
	code := c.ask(ctx, conn, question)
	conn.Close()
	if status := <-served; code == 0 {
		code = status
	}
	return code
}

// askQuestion is the question of the command line, or stdin for "-".
func askQuestion(stdin io.Reader, args []string) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("give a question, or - to read it from stdin")
	}
	if len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return "", fmt.Errorf("read the question from stdin: %w", err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	return strings.Join(args, " "), nil
}

// confirmInput is where a confirmation is answered: the terminal, when
// stdin is one and does not carry the question.
func confirmInput(stdin io.Reader, args []string) *bufio.Reader {
	f, ok := stdin.(*os.File)
	if !ok || len(args) == 1 && args[0] == "-" {
		return nil
	}
	// A terminal, not merely a character device such as /dev/null.
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return nil
	}
	return bufio.NewReader(f)
}

// askClient is the terminal's side of the connection.
type askClient struct {
	out, stderr io.Writer
	json        bool
	confirmIn   *bufio.Reader
	printed     bool // text printed since the last newline
}

func (c *askClient) ask(ctx context.Context, conn jsonrpc2.Conn, question string) int {
	init := map[string]any{
		"clientInfo":   map[string]string{"name": "aiq-rpc ask"},
		"capabilities": map[string]bool{"confirm": c.confirmIn != nil},
	}
	var initRes json.RawMessage
	if _, err := conn.Call(ctx, "initialize", init, &initRes); err != nil {
		fmt.Fprintf(c.stderr, "aiq-rpc ask: %v\n", err)
		return 1
	}
	var ans conversation.Answer
	_, err := conn.Call(ctx, "chat/turn", map[string]string{"query": question}, &ans)
	code := c.report(ans, err)
	var shut json.RawMessage
	if _, err := conn.Call(ctx, "shutdown", nil, &shut); err != nil {
		fmt.Fprintf(c.stderr, "aiq-rpc ask: shutdown: %v\n", err)
		code = 1
	}
	conn.Notify(ctx, "exit", nil)
	return code
}

func (c *askClient) report(ans conversation.Answer, err error) int {
	if err != nil {
		c.endLine()
		fmt.Fprintf(c.stderr, "aiq-rpc ask: %v\n", err)
		return 1
	}
	if c.json {
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(ans)
		return 0
	}
	c.endLine()
	for _, w := range ans.Warnings {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
	if ans.StopReason == conversation.StopCancelled {
		fmt.Fprintln(c.out, "(cancelled)")
	}
	if ans.SavedTo != "" {
		fmt.Fprintf(c.out, "\nCurrent session saved to %s\n%s\n", ans.SavedTo, conversation.ContinueHint(ans.SavedTo))
	}
	return 0
}

func (c *askClient) endLine() {
	if c.printed {
		fmt.Fprintln(c.out)
		c.printed = false
	}
}

// handle takes the server's notifications and its confirmation requests.
func (c *askClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "chat/progress":
		var p conversation.Event
		if err := json.Unmarshal(req.Params(), &p); err == nil && !c.json {
			c.show(p)
		}
		return nil, nil
	case "window/showMessage":
		var p struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			fmt.Fprintf(c.stderr, "aiq-rpc: %s\n", p.Message)
		}
		return nil, nil
	case "chat/confirm":
		var p conversation.ConfirmRequest
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "chat/confirm: %v", err)
		}
		return map[string]conversation.Decision{"decision": c.confirm(p)}, nil
	}
	return jsonrpc2.MethodNotFoundHandler(ctx, req)
}

// show prints one event: the text as it streams, the SQL, the rows.
func (c *askClient) show(e conversation.Event) {
	switch e.Kind {
	case conversation.EventText:
		fmt.Fprint(c.out, e.Text)
		c.printed = !strings.HasSuffix(e.Text, "\n")
	case conversation.EventToolCall:
		if e.SQL != "" {
			c.endLine()
			fmt.Fprintf(c.out, "\n> %s\n", strings.ReplaceAll(strings.TrimSpace(e.SQL), "\n", "\n  "))
		}
	case conversation.EventToolResult:
		if e.Statement != nil {
			c.endLine()
			writeStatement(c.out, *e.Statement)
		}
	case conversation.EventStatus:
		c.endLine()
		fmt.Fprintf(c.stderr, "%s\n", e.Message)
	}
}

func (c *askClient) confirm(p conversation.ConfirmRequest) conversation.Decision {
	c.endLine()
	fmt.Fprintf(c.out, "\nThe model wants to run a statement that changes the database (%s):\n  %s\nRun it? [y/N/a(lways)] ", p.Reason, p.SQL)
	line, _ := c.confirmIn.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return conversation.AllowOnce
	case "a", "always":
		return conversation.AllowAlways
	}
	return conversation.Reject
}

// pipeConn joins the two ends of the client's pipes into one connection.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	p.r.Close()
	return p.w.Close()
}

// nopCloser keeps the server from closing stdout, which the process owns.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
