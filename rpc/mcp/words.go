package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/rpc/internal/jsonline"
)

// The JSON-RPC error codes the SDK's answers are given when it leaves
// them at 0, which no client can act on.
const (
	codeInvalidParams = -32602
	codeInternalError = -32603
)

// maxExactID is the largest whole number a float64 holds exactly: the SDK
// decodes a number id as a float64 and answers with it as an integer.
const maxExactID = 1<<53 - 1

// exactID says what is wrong with a request's id that the SDK cannot
// answer as sent: 1.5 would come back as 1, 1e2 as 100, 2^53+1 as 2^53
// and 2^64 as a negative number, and the client could not match the
// answer. "" means the id comes back as sent.
func exactID(id json.RawMessage) string {
	if jsonline.Kind(id) != "a number" {
		return ""
	}
	text := string(id)
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && strconv.FormatInt(n, 10) == text && -maxExactID <= n && n <= maxExactID {
		return ""
	}
	return fmt.Sprintf("invalid request: the id %.40s cannot be answered as sent; use a string, or a whole number written in digits from -%d to %d", text, maxExactID, maxExactID)
}

// sdkError is the error member of a response the SDK writes.
type sdkError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// reword returns the response line with its error said in words and given
// a JSON-RPC code, when the SDK's answer quotes Go's types or has code 0;
// otherwise nil, and the line goes out as it is. params are the request's,
// if known.
func reword(line []byte, raw, params json.RawMessage) []byte {
	var e sdkError
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	code, message := rewordError(e.Code, e.Message, params)
	if code == e.Code && message == e.Message {
		return nil
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return nil
	}
	e.Code, e.Message = code, message
	msg["error"], _ = json.Marshal(e)
	out, err := json.Marshal(msg)
	if err != nil {
		return nil
	}
	return append(out, '\n')
}

var (
	beforeInit   = regexp.MustCompile(`^method "([^"]*)" is invalid during session initialization$`)
	handling     = regexp.MustCompile(`^handling '([^']*)': `)
	structField  = regexp.MustCompile(`Go struct field ([\w.]+) of type (.+)$`)
	goInternals  = regexp.MustCompile(`Go value|Go struct field|json: cannot unmarshal|unmarshaling |\*mcp\.|mcp\.[A-Z]`)
	duplicateMsg = `duplicate "initialize" received`
)

// rewordError is the code and message a client gets for an error of the
// SDK's: a code from the JSON-RPC specification, and a message in words.
// params are the request's, if known.
func rewordError(code int, message string, params json.RawMessage) (int, string) {
	if m := beforeInit.FindStringSubmatch(message); m != nil {
		return jsonline.CodeInvalidRequest, fmt.Sprintf("invalid request: %q came before initialize; send initialize first, then notifications/initialized, then the other requests", m[1])
	}
	if message == duplicateMsg {
		return jsonline.CodeInvalidRequest, "invalid request: the session is already initialized; initialize is sent once per connection"
	}
	if goInternals.MatchString(message) {
		if code == 0 {
			code = codeInvalidParams
		}
		return code, invalidParams(message, params)
	}
	if code == 0 {
		code = codeInternalError
	}
	return code, message
}

// invalidParams says in words what a decoding error of the SDK's found
// wrong with a request's params (params, if known).
func invalidParams(message string, params json.RawMessage) string {
	what := "the params"
	if m := handling.FindStringSubmatch(message); m != nil {
		what = fmt.Sprintf("the params of %q", m[1])
	}
	if m := structField.FindStringSubmatch(message); m != nil {
		return fmt.Sprintf("invalid params: in %s, %q must be %s", what, memberPath(m[1], params), kindOfGoType(m[2]))
	}
	return fmt.Sprintf("invalid params: %s must be a JSON object, with the members the method takes", what)
}

// memberPath is the path of the member a decoding error names, without
// the Go types before it. Go writes the type that holds the member, then
// the member's path from the top of what it decodes
// ("mcp.CallToolParamsRaw.name"), and the SDK's own decoders put more
// types in ("clientCapabilitiesV2mcp.RootCapabilities.capabilities.roots.listChanged"):
// the path is the longest tail of the parts that names members present in
// the request's params. Without params, the parts that are not a JSON
// member name as MCP writes them (lower camel case, or _meta) go.
func memberPath(field string, params json.RawMessage) string {
	parts := strings.Split(field, ".")
	if params != nil {
		for i := range parts {
			if present(params, parts[i:]) {
				return strings.Join(parts[i:], ".")
			}
		}
	}
	var kept []string
	for _, p := range parts {
		if memberName.MatchString(p) {
			kept = append(kept, p)
		} else {
			kept = nil // a type: the path starts after it
		}
	}
	if len(kept) == 0 {
		return parts[len(parts)-1]
	}
	return strings.Join(kept, ".")
}

// memberName is a member name as MCP writes them, and no Go type name
// the SDK uses: no capital first, no version suffix, no package.
var memberName = regexp.MustCompile(`^(_meta|[a-z][a-zA-Z]*)$`)

// present reports whether path names a member in v, through objects and
// the elements of arrays.
func present(v json.RawMessage, path []string) bool {
	if len(path) == 0 {
		return true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil {
		m, ok := obj[path[0]]
		return ok && present(m, path[1:])
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) == nil {
		for _, e := range arr {
			if present(e, path) {
				return true
			}
		}
	}
	return false
}

// kindOfGoType names the JSON a decoder wants for a Go type, as a client
// writes it.
func kindOfGoType(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return "an object"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	}
	return "a value of another kind"
}
