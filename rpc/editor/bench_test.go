package editor_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
	"github.com/aiq/aiq-rpc/rpc/editor"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// BenchmarkSmallRequest is one chat/history round trip on an empty session,
// against a yardstick: a minimal go.lsp.dev/jsonrpc2 server answering the
// same request with the same result, over the same kind of pipes (the
// operating system's, as the binary's stdin and stdout) and the same
// client. It reports the median and the 99th percentile.
//
// The pipes are "polled" as os.Pipe makes them, or "blocking" as the
// binary's stdin usually is, which the server reads on a goroutine of its
// own (see closableReader).
func BenchmarkSmallRequest(b *testing.B) {
	for _, blocking := range []bool{false, true} {
		pipes := "polled"
		if blocking {
			pipes = "blocking"
		}
		b.Run("pipes="+pipes+"/aiq-rpc", func(b *testing.B) {
			c := startBenchOn(b, conversation.Config{}, blocking)
			var info conversation.Info
			c.result(b, "session/new", nil, &info)
			benchRoundTrips(b, c, "chat/history", map[string]any{"sessionId": info.SessionID})
		})
		b.Run("pipes="+pipes+"/jsonrpc2-yardstick", func(b *testing.B) {
			c := startYardstick(b, blocking)
			benchRoundTrips(b, c, "chat/history", map[string]any{"sessionId": "s1"})
		})
	}
}

func benchRoundTrips(b *testing.B, c *benchClient, method string, params any) {
	// Built once: the client's own encoding is not what is measured.
	id := c.nextID + 1
	frame := c.frame(id, method, params)
	var took []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		c.write(b, frame)
		for {
			m := c.read(b)
			if m.ID != nil && *m.ID == id {
				if m.Error != nil {
					b.Fatalf("%s: %s", method, m.Error)
				}
				break
			}
		}
		took = append(took, time.Since(start))
	}
	reportPercentiles(b, took, "us", time.Microsecond)
}

// startYardstick starts the minimal jsonrpc2 server: jsonrpc2's own stream
// and codec, one handler, nothing else.
func startYardstick(b *testing.B, blocking bool) *benchClient {
	toServer, clientOut, clientIn, fromServer := osPipes(b, blocking)
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{toServer, fromServer}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		return conversation.History{SessionID: p.SessionID, Turns: []conversation.HistoryEntry{}}, nil
	})
	b.Cleanup(func() { clientOut.Close(); conn.Close() })
	return &benchClient{r: bufio.NewReader(clientIn), w: clientOut}
}

// blockingPipe returns a pipe in blocking mode, which the runtime does not
// poll: a read blocks its thread, as on the binary's stdin.
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "pipe-r"), os.NewFile(uintptr(fds[1]), "pipe-w"), nil
}

type pipeRWC struct {
	r *os.File
	w *os.File
}

// osPipes returns two pipes of the operating system: the server reads what
// the client writes, and the client reads what the server writes. When
// blocking, the server's input is in blocking mode, as stdin is.
func osPipes(b *testing.B, blocking bool) (toServer, clientOut, clientIn, fromServer *os.File) {
	toServer, clientOut, err := os.Pipe()
	if blocking {
		toServer, clientOut, err = blockingPipe()
	}
	if err != nil {
		b.Fatal(err)
	}
	clientIn, fromServer, err = os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return toServer, clientOut, clientIn, fromServer
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error                { p.r.Close(); return p.w.Close() }

// BenchmarkTextLatency is the time from a chunk of the model's stream
// reaching the server (read from the HTTP response of the scripted model)
// to the chat/progress notification that carries its text being read by
// the client. "first" is the first text of a turn (a 10-word answer, one
// chunk a millisecond); "later" is every other chunk of a 1,000-chunk
// answer streamed one chunk a millisecond.
func BenchmarkTextLatency(b *testing.B) {
	for _, c := range []struct {
		name  string
		words int
		first bool
	}{
		{"first", 10, true},
		{"later", 1000, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			chunks := &chunkLog{}
			srv := llmtest.NewServer(b)
			model, err := llm.New(llm.Config{URL: srv.URL, Model: "bench",
				HTTPClient: &http.Client{Transport: chunkTransport{base: http.DefaultTransport, log: chunks}}})
			if err != nil {
				b.Fatal(err)
			}
			client := startBench(b, conversation.Config{Model: func() (conversation.Model, error) { return model, nil }})
			var info conversation.Info
			client.result(b, "session/new", map[string]any{"source": ""}, &info)
			text := strings.TrimSpace(strings.Repeat("word ", c.words))
			var delays []time.Duration
			for b.Loop() {
				b.StopTimer()
				chunks.reset()
				srv.Add(llmtest.Step{Text: text, Pace: time.Millisecond})
				b.StartTimer()
				sent := client.turn(b, info.SessionID, "say it")
				d := textDelays(b, chunks.take(), sent)
				if c.first {
					delays = append(delays, d[0])
				} else {
					delays = append(delays, d[1:]...)
				}
			}
			reportPercentiles(b, delays, "ms", time.Millisecond)
		})
	}
}

// textDelays matches the chunks the server read with the text
// notifications the client got, and returns each chunk's delay.
func textDelays(b *testing.B, chunks []timedText, got []timedText) []time.Duration {
	var in, out strings.Builder
	for _, c := range chunks {
		in.WriteString(c.text)
	}
	for _, g := range got {
		out.WriteString(g.text)
	}
	if in.String() != out.String() {
		b.Fatalf("the client got %q, the model sent %q", out.String(), in.String())
	}
	var delays []time.Duration
	end, n, sentEnd := 0, 0, 0
	for _, c := range chunks {
		end += len(c.text)
		for sentEnd < end {
			sentEnd += len(got[n].text)
			n++
		}
		delays = append(delays, got[n-1].at.Sub(c.at))
	}
	return delays
}

type timedText struct {
	at   time.Time
	text string
}

// chunkLog records the text of each chunk of the model's stream with the
// time the server read it.
type chunkLog struct {
	mu     sync.Mutex
	chunks []timedText
}

func (l *chunkLog) reset() { l.mu.Lock(); l.chunks = nil; l.mu.Unlock() }

func (l *chunkLog) take() []timedText {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.chunks)
}

func (l *chunkLog) add(at time.Time, line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data: "))
	if !ok {
		return
	}
	var ev struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &ev) != nil || len(ev.Choices) == 0 || ev.Choices[0].Delta.Content == "" {
		return
	}
	l.mu.Lock()
	l.chunks = append(l.chunks, timedText{at: at, text: ev.Choices[0].Delta.Content})
	l.mu.Unlock()
}

// chunkTransport timestamps each SSE line of the responses as the
// client reads it.
type chunkTransport struct {
	base http.RoundTripper
	log  *chunkLog
}

func (t chunkTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		resp.Body = &chunkBody{ReadCloser: resp.Body, log: t.log}
	}
	return resp, err
}

type chunkBody struct {
	io.ReadCloser
	log  *chunkLog
	line []byte
}

func (b *chunkBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	at := time.Now()
	for _, c := range p[:n] {
		if c != '\n' {
			b.line = append(b.line, c)
			continue
		}
		b.log.add(at, b.line)
		b.line = b.line[:0]
	}
	return n, err
}

// reportPercentiles reports the median and the 99th percentile of
// samples in unit.
func reportPercentiles(b *testing.B, samples []time.Duration, name string, unit time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		return float64(samples[int(q*float64(len(samples)-1))]) / float64(unit)
	}
	b.ReportMetric(at(0.5), "p50-"+name)
	b.ReportMetric(at(0.99), "p99-"+name)
}

// benchClient is a client that reads the server's frames in the
// benchmark's goroutine and timestamps them: rpctest's client answers
// through goroutines and channels, which the figures would include.
type benchClient struct {
	r      *bufio.Reader
	w      io.Writer
	nextID int64
}

// startBench starts a server in this process over a pipe pair and
// initializes it. cfg's Home is set to a temporary folder, and it has no
// data source unless cfg lists some.
func startBench(b *testing.B, cfg conversation.Config) *benchClient {
	return startBenchOn(b, cfg, false)
}

// startBenchOn is startBench, on a blocking input when blocking.
func startBenchOn(b *testing.B, cfg conversation.Config, blocking bool) *benchClient {
	cfg.Home = sessionio.Home{Dir: b.TempDir()}
	if cfg.Sources == nil {
		cfg.Sources = func() ([]sessionio.Source, error) { return nil, nil }
	}
	ws := conversation.NewWorkspace(cfg)
	server := editor.NewServer(ws, editor.Options{Name: "aiq-rpc", Version: "bench", Home: cfg.Home, ModelConfigured: cfg.Model != nil})
	toServer, clientOut, clientIn, fromServer := osPipes(b, blocking)
	done := make(chan struct{})
	go func() { server.Serve(context.Background(), toServer, fromServer); close(done) }()
	b.Cleanup(func() { clientOut.Close(); clientIn.Close(); <-done })
	c := &benchClient{r: bufio.NewReader(clientIn), w: clientOut}
	c.result(b, "initialize", nil, nil)
	return c
}

type benchMessage struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	at     time.Time
}

func (c *benchClient) frame(id int64, method string, params any) []byte {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

func (c *benchClient) write(b *testing.B, frame []byte) {
	if _, err := c.w.Write(frame); err != nil {
		b.Fatal(err)
	}
}

// send writes a request and returns its id.
func (c *benchClient) send(b *testing.B, method string, params any) int64 {
	c.nextID++
	c.write(b, c.frame(c.nextID, method, params))
	return c.nextID
}

// read returns the next message of the server.
func (c *benchClient) read(b *testing.B) benchMessage {
	length := -1
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			b.Fatalf("read a header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" && length >= 0 {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.r, body); err != nil {
		b.Fatalf("read a body: %v", err)
	}
	m := benchMessage{at: time.Now()}
	if err := json.Unmarshal(body, &m); err != nil {
		b.Fatalf("decode %s: %v", body, err)
	}
	return m
}

// call sends a request and reads up to its response, which it returns
// with the notifications read before it.
func (c *benchClient) call(b *testing.B, method string, params any) (benchMessage, []benchMessage) {
	id := c.send(b, method, params)
	var notes []benchMessage
	for {
		m := c.read(b)
		switch {
		case m.ID != nil && *m.ID == id && m.Method == "":
			if m.Error != nil {
				b.Fatalf("%s: %s", method, m.Error)
			}
			return m, notes
		case m.ID == nil:
			notes = append(notes, m)
		}
	}
}

func (c *benchClient) result(b *testing.B, method string, params, v any) {
	m, _ := c.call(b, method, params)
	if v != nil {
		if err := json.Unmarshal(m.Result, v); err != nil {
			b.Fatalf("decode the result of %s: %v", method, err)
		}
	}
}

// turn runs one chat/turn and returns its text notifications.
func (c *benchClient) turn(b *testing.B, sessionID, query string) []timedText {
	_, notes := c.call(b, "chat/turn", map[string]any{"sessionId": sessionID, "query": query})
	var texts []timedText
	for _, n := range progressEvents(b, notes) {
		if n.Kind == conversation.EventText {
			texts = append(texts, timedText{at: n.at, text: n.Text})
		}
	}
	return texts
}

type timedEvent struct {
	conversation.Event
	at time.Time
}

func progressEvents(b *testing.B, notes []benchMessage) []timedEvent {
	var events []timedEvent
	for _, n := range notes {
		if n.Method != "chat/progress" {
			continue
		}
		var e conversation.Event
		if err := json.Unmarshal(n.Params, &e); err != nil {
			b.Fatalf("decode chat/progress: %v", err)
		}
		events = append(events, timedEvent{Event: e, at: n.at})
	}
	return events
}

// BenchmarkFirstRows is a SELECT of a million rows on each engine, the
// statement of tools' BenchmarkSelectMillionRows, asked through the server
// by the scripted model. It reports, as the client sees them, the time
// from the tool_call notification to the rows notification with the first
// page ("first-rows-ms") and to the tool_result ("result-ms"). The
// memory the statement takes is tools' benchmark's to report.
func BenchmarkFirstRows(b *testing.B) {
	for _, c := range []struct {
		name   string
		source func(testing.TB) sessionio.Source
		sql    string
	}{
		{"sqlite", dbtest.SQLite, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000) " +
			"SELECT n, hex(randomblob(16)) AS s FROM c"},
		// generate_series is computed whole by the server before its first
		// row is sent; a table is read as it is scanned, as users' tables are.
		{"postgres", dbtest.Postgres, "SELECT g AS n, md5(g::text) AS s FROM generate_series(1, 1000000) AS g"},
		{"postgres-table", dbtest.MillionRows, "SELECT n, s FROM million"},
		{"mariadb", dbtest.MariaDB, "SELECT seq AS n, md5(seq) AS s FROM seq_1_to_1000000"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := c.source(b)
			srv := llmtest.NewServer(b)
			model, err := llm.New(llm.Config{URL: srv.URL, Model: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			client := startBench(b, conversation.Config{
				Model:         func() (conversation.Model, error) { return model, nil },
				Sources:       func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
				DefaultSource: src.Name,
			})
			var info conversation.Info
			client.result(b, "session/new", nil, &info)
			args, _ := json.Marshal(map[string]string{"sql": c.sql})
			var firstRows, result []time.Duration
			for b.Loop() {
				srv.Add(llmtest.Step{ToolCalls: []llmtest.Call{{ID: "c1", Name: "execute_sql", Arguments: string(args)}}},
					llmtest.Step{Text: "Done."})
				_, notes := client.call(b, "chat/turn", map[string]any{"sessionId": info.SessionID, "query": "all of it"})
				at := map[string]time.Time{}
				for _, e := range progressEvents(b, notes) {
					if _, seen := at[e.Kind]; !seen {
						at[e.Kind] = e.at
					}
					if e.Kind == conversation.EventToolResult && (e.Statement == nil || e.Statement.RowCount != 1_000_000) {
						b.Fatalf("the result is not a million rows: %+v", e.Statement)
					}
				}
				if at[conversation.EventRows].IsZero() {
					b.Fatal("no rows notification")
				}
				start := at[conversation.EventToolCall]
				firstRows = append(firstRows, at[conversation.EventRows].Sub(start))
				result = append(result, at[conversation.EventToolResult].Sub(start))
			}
			reportPercentiles(b, firstRows, "first-rows-ms", time.Millisecond)
			reportPercentiles(b, result, "result-ms", time.Millisecond)
		})
	}
}
