// Command stdlibserver is the yardstick of BenchmarkColdStartAgainstStdlib:
// a JSON-RPC server over LSP framing on its stdin and stdout that uses Go's
// standard library only and answers initialize, as small as such a server
// gets.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strconv"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	tp := textproto.NewReader(in)
	for {
		header, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(header.Get("Content-Length"))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		var req request
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			continue
		}
		var result any = nil
		if req.Method == "initialize" {
			result = map[string]any{"protocolVersion": 1, "serverInfo": map[string]string{"name": "stdlibserver", "version": "1"}, "capabilities": map[string]any{}}
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(out), out)
	}
}
