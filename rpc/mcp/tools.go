package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolDef is one MCP tool. Each but list_sources is a tool of the chat's
// tools.Set, called by name through conversation.Call; offering one more
// of the Set's tools over MCP is one more entry here.
type toolDef struct {
	name        string
	title       string
	description string
	readOnly    bool // false for execute_sql, which may write once the user confirms
	params      []param
	output      string // the JSON Schema of structuredContent
	// local runs the tool here rather than through the Set (list_sources);
	// nil for the Set's tools.
	local func(s *Server) (*sdk.CallToolResult, error)
}

// param is one argument of a tool.
type param struct {
	name        string
	kind        string // "string", or "array" of strings
	description string
	required    bool
}

var sourceParam = param{name: "source", kind: "string",
	description: "The data source's name, from list_sources. Leave it out for the default source."}

// toolTable is the tools MCP offers, in the order tools/list gives them.
var toolTable = []toolDef{
	{
		name:  "list_sources",
		title: "List data sources",
		description: "List the databases aiq can query: each source's name, engine type and a label " +
			"(host, port and database, or the file). Pass a name as the source argument of the other tools; " +
			"the default source is marked.",
		readOnly: true,
		output: `{"type":"object","properties":{"sources":{"type":"array","items":{"type":"object","properties":{` +
			`"name":{"type":"string"},"type":{"type":"string"},"label":{"type":"string"},"default":{"type":"boolean"}},` +
			`"required":["name","type","label","default"]}},"error":{"type":"string"}},"required":["sources"]}`,
		local: (*Server).listSources,
	},
	{
		name:        "list_tables",
		title:       "List tables",
		description: "List the names of the tables and views of a data source.",
		readOnly:    true,
		params:      []param{sourceParam},
		output: `{"type":"object","properties":{"source":{"type":"string"},"tables":{"type":"array","items":{"type":"string"}}},` +
			`"required":["source","tables"]}`,
	},
	{
		name:  "describe_table",
		title: "Describe tables",
		description: "Describe tables or views of a data source: their columns, types and whether they may be null. " +
			"Give table for one, or tables for several.",
		readOnly: true,
		params: []param{sourceParam,
			{name: "table", kind: "string", description: "A table's name, or schema.name."},
			{name: "tables", kind: "array", description: "Several tables' names, each a name or schema.name."}},
		output: `{"type":"object","properties":{"source":{"type":"string"},"tables":{"type":"array","items":{"type":"object","properties":{` +
			`"schema":{"type":"string"},"name":{"type":"string"},"columns":{"type":"array","items":{"type":"object","properties":{` +
			`"name":{"type":"string"},"type":{"type":"string"},"nullable":{"type":"boolean"}},"required":["name","type","nullable"]}}},` +
			`"required":["name","columns"]}}},"required":["source","tables"]}`,
	},
	{
		name:  "execute_sql",
		title: "Run SQL",
		description: "Run one SQL statement on a data source and return its rows. Use the dialect of the source's type " +
			"(see list_sources). A statement that only reads runs at once. A statement that changes data or schema, or " +
			"reads outside the database, runs only if the user confirms it in a prompt this server shows them; when they " +
			"decline, or their editor cannot ask them, it does not run: do not retry it in another form, tell the user. " +
			"Only the first rows that fit in about 4 KB come back (row_count counts them all), so aggregate and use LIMIT. " +
			"One statement per call.",
		params: []param{sourceParam, {name: "sql", kind: "string", description: "One SQL statement.", required: true}},
		output: `{"type":"object","properties":{"source":{"type":"string"},"sql":{"type":"string"},` +
			`"status":{"type":"string","enum":["success","error","rejected","cancelled"]},` +
			`"row_count":{"type":"integer"},"columns":{"type":"array","items":{"type":"string"}},` +
			`"rows":{"type":"array","items":{"type":"array"}},"truncated":{"type":"boolean"},"error":{"type":"string"}},` +
			`"required":["source","sql","status"]}`,
	},
}

// tool is the MCP description of t.
func (t toolDef) tool() *sdk.Tool {
	no := false
	destructive := !t.readOnly
	return &sdk.Tool{
		Name:         t.name,
		Title:        t.title,
		Description:  t.description,
		InputSchema:  t.inputSchema(),
		OutputSchema: json.RawMessage(t.output),
		Annotations: &sdk.ToolAnnotations{
			Title:           t.title,
			ReadOnlyHint:    t.readOnly,
			DestructiveHint: &destructive,
			OpenWorldHint:   &no,
		},
	}
}

func (t toolDef) inputSchema() json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range t.params {
		schema := map[string]any{"type": p.kind, "description": p.description}
		if p.kind == "array" {
			schema["items"] = map[string]any{"type": "string"}
		}
		props[p.name] = schema
		if p.required {
			required = append(required, p.name)
		}
	}
	data, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required,
		"additionalProperties": false})
	if err != nil {
		panic(err) // a fixed table of strings always encodes
	}
	return data
}

// maxArgBytes bounds a call's arguments: far above any statement a person
// or an agent writes, far below what would hold up the server.
const maxArgBytes = 1 << 20

// parseArgs checks a call's arguments against t's parameters and returns
// them as an object. The message of an error says what to send instead.
func (t toolDef) parseArgs(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(raw) > maxArgBytes {
		return nil, fmt.Errorf("the arguments of %s are %.1f MiB; aiq takes at most %d KiB per call. Send one statement of a sensible size",
			t.name, float64(len(raw))/(1<<20), maxArgBytes>>10)
	}
	args := map[string]json.RawMessage{}
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the arguments of %s must be a JSON object: %v", t.name, err)
		}
	}
	known := map[string]param{}
	for _, p := range t.params {
		known[p.name] = p
		v, ok := args[p.name]
		if !ok || string(v) == "null" {
			if p.required {
				return nil, fmt.Errorf("%s needs the argument %s (%s)", t.name, p.name, p.description)
			}
			delete(args, p.name)
			continue
		}
		if err := checkKind(p, v); err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
	}
	for name := range args {
		if _, ok := known[name]; !ok {
			return nil, fmt.Errorf("%s takes no argument %q; its arguments are %s", t.name, name, t.paramNames())
		}
	}
	return args, nil
}

func checkKind(p param, v json.RawMessage) error {
	switch p.kind {
	case "string":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return fmt.Errorf("the argument %s must be a string, not %s", p.name, v)
		}
	case "array":
		var list []string
		if json.Unmarshal(v, &list) != nil {
			return fmt.Errorf("the argument %s must be an array of strings", p.name)
		}
	}
	return nil
}

func (t toolDef) paramNames() string {
	if len(t.params) == 0 {
		return "none"
	}
	var names []string
	for _, p := range t.params {
		names = append(names, p.name)
	}
	return strings.Join(names, ", ")
}
