package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aiq/aiq-rpc/rpc/internal/jsonline"
	"github.com/aiq/aiq-rpc/tools"
)

// toolDef is one MCP tool. Each but list_sources is a tool of the chat's
// tools.Set, called by name through conversation.Call; offering one more
// of the Set's tools over MCP is one more entry here.
type toolDef struct {
	name        string
	title       string
	description string
	readOnly    bool // false for execute_sql, which may write once the user confirms
	// setTool is the Set's tool that runs the call, when it is not name:
	// query is execute_sql for statements that only read.
	setTool string
	params  []param
	output  string // the JSON Schema of structuredContent
	// local runs the tool here rather than through the Set (list_sources);
	// nil for the Set's tools.
	local func(s *Server) (*sdk.CallToolResult, error)
}

// param is one argument of a tool.
type param struct {
	name        string
	kind        string // "string", or "array" of strings
	maxItems    int    // of an array; 0 for no bound
	description string
	required    bool
}

// maxDescribe is the most tables one describe_table call takes, as the
// chat's tool takes them.
const maxDescribe = 20

var sourceParam = param{name: "source", kind: "string",
	description: "The data source's name, from list_sources. Leave it out for the default source."}

// toolTable is the tools MCP offers, in the order tools/list gives them.
// The descriptions follow the chat's (tools.Set.Specs), with what a host's
// model needs besides: the source argument, and that nothing here writes
// but execute_sql. A host lets a tool with readOnlyHint run without asking
// its user, which is why reads have query of their own.
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
		name:  tools.ToolListTables,
		title: "List tables",
		description: "List the names of the tables and views of a data source, as the other tools take them " +
			"(schema.name where the source has several schemas). For a large schema, search_schema finds the " +
			"tables that matter faster.",
		readOnly: true,
		params:   []param{sourceParam},
		output: `{"type":"object","properties":{"source":{"type":"string"},"tables":{"type":"array","items":{"type":"string"}}},` +
			`"required":["source","tables"]}`,
	},
	{
		name:  tools.ToolDescribeTable,
		title: "Describe tables",
		description: "Describe tables or views in full, each as a card: columns and types, NOT NULL, primary and unique " +
			"keys, foreign keys both ways (what it references, and what references it), indexes, allowed values, " +
			"comments and a row estimate. Join along the foreign keys it shows. Give table for one, or tables for up to " +
			"20 at once; a pattern of shards (events_YYYYMMDD) lists its tables. A name that is no table is answered " +
			"with the closest names.",
		readOnly: true,
		params: []param{sourceParam,
			{name: "table", kind: "string", description: "A table's name, or schema.name."},
			{name: "tables", kind: "array", maxItems: maxDescribe, description: "Several tables' names, each a name or schema.name."}},
		output: `{"type":"object","properties":{"source":{"type":"string"},` +
			`"tables":{"type":"array","items":{"type":"string"},"description":"Each table's card, one line a fact."},` +
			`"not_found":{"type":"array","items":{"type":"string"},"description":"For each name that is no table, the closest names."}},` +
			`"required":["source","tables"]}`,
	},
	{
		name:  tools.ToolSearchSchema,
		title: "Search the schema",
		description: "Find the tables and columns whose names or comments match words (any case, plurals folded, " +
			"or a part of a name): up to 20 tables within 8 KiB, best first (a name that is the query or starts with " +
			"it, then more and rarer words; a set of shards is one), each with its one-line card, cut when wide, and " +
			"the columns that matched. Use it on a large schema, or when the schema resource says tables are not shown.",
		readOnly: true,
		params: []param{sourceParam,
			{name: "query", kind: "string", required: true, description: `Words to find, such as "invoice supplier".`}},
		output: `{"type":"object","properties":{"source":{"type":"string"},"query":{"type":"string"},` +
			`"matches":{"type":"array","items":{"type":"object","properties":{"table":{"type":"string"},` +
			`"matching_columns":{"type":"array","items":{"type":"string"}},"card":{"type":"string"}},"required":["table","card"]}},` +
			`"more":{"type":"integer","description":"How many more tables match."}},"required":["source","query","matches"]}`,
	},
	{
		name:  tools.ToolProfileColumn,
		title: "Profile a column",
		description: "Profile a column's values before filtering on them: distinct count, null fraction, min, max and the " +
			"10 most common values with their counts, so that a WHERE clause uses a value as the data writes it " +
			"('Berlin' or 'berlin', a status code). Read-only. On a table of over a million rows it reads a sample, " +
			"and says so.",
		readOnly: true,
		params: []param{sourceParam,
			{name: "table", kind: "string", required: true, description: "The table's name, or schema.name."},
			{name: "column", kind: "string", required: true, description: "The column's name."}},
		output: `{"type":"object","properties":{"source":{"type":"string"},"table":{"type":"string"},"column":{"type":"string"},` +
			`"rows_read":{"type":"integer"},"sample":{"type":"string"},"distinct":{"type":"integer"},"nulls":{"type":"integer"},` +
			`"null_fraction":{"type":"number"},"min":{},"max":{},` +
			`"most_common":{"type":"array","items":{"type":"object","properties":{"value":{},"count":{"type":"integer"}},"required":["value","count"]}},` +
			`"note":{"type":"string"}},` +
			`"required":["source","table","column","rows_read","distinct","nulls","null_fraction","most_common"]}`,
	},
	{
		name:  tools.ToolExplainSQL,
		title: "Explain SQL",
		description: "Show the engine's plan of one statement without running it (EXPLAIN, never EXPLAIN ANALYZE; " +
			"EXPLAIN QUERY PLAN on SQLite): estimated rows and cost where the engine gives them, full scans of large " +
			"tables, and the plan text. Safe for a write too, which is only planned, never run. Pass the statement " +
			"itself, without EXPLAIN.",
		readOnly: true,
		params: []param{sourceParam,
			{name: "sql", kind: "string", required: true, description: "One SQL statement, without EXPLAIN."}},
		output: `{"type":"object","properties":{"source":{"type":"string"},"sql":{"type":"string"},` +
			`"refused":{"type":"string"},"error":{"type":"string"},"estimated_rows":{"type":"number"},"cost":{"type":"number"},` +
			`"full_scans":{"type":"array","items":{"type":"object","properties":{"table":{"type":"string"},` +
			`"rows":{"type":"integer","description":"The estimate; -1 when unknown."},"large":{"type":"boolean"}},"required":["table","rows"]}},` +
			`"plan":{"type":"string"}},"required":["source","sql"]}`,
	},
	{
		name:    toolQuery,
		title:   "Query (read-only)",
		setTool: tools.ToolExecuteSQL,
		description: "Run one SQL statement that only reads (SELECT, WITH ... SELECT, SHOW, DESCRIBE, EXPLAIN) on a data " +
			"source and return its rows. Use the dialect of the source's type (see list_sources). Use this tool for every " +
			"read: it never changes anything, so your host may run it without asking. A statement that changes data or " +
			"schema, or reads outside the database (a server file, another database), is refused here: send that one to " +
			"execute_sql, which asks the user first. Only the first rows that fit in about 4 KB come back (row_count counts " +
			"them all), so aggregate and use LIMIT. One statement per call.",
		readOnly: true,
		params:   []param{sourceParam, {name: "sql", kind: "string", description: "One SQL statement that only reads.", required: true}},
		output:   statementOutput,
	},
	{
		name:  tools.ToolExecuteSQL,
		title: "Run SQL (writes ask the user)",
		description: "Run one SQL statement that changes data or schema (INSERT, UPDATE, DELETE, CREATE, ALTER, ...), or " +
			"reads outside the database, on a data source. Use the dialect of the source's type (see list_sources). It runs " +
			"only if the user confirms it in a prompt this server shows them (in their editor, or a page in their browser); " +
			"when they decline, or no one can be asked, it does not run: do not retry it in another form, tell the user. " +
			"For a statement that only reads, use query instead, which needs no confirmation. One statement per call.",
		params: []param{sourceParam, {name: "sql", kind: "string", description: "One SQL statement.", required: true}},
		output: statementOutput,
	},
}

// toolQuery is the read-only tool: execute_sql for what the classifier
// reads as a read, and a refusal that names execute_sql for the rest.
const toolQuery = "query"

// statementOutput is the JSON Schema of a statement's structuredContent.
const statementOutput = `{"type":"object","properties":{"source":{"type":"string"},"sql":{"type":"string"},` +
	`"status":{"type":"string","enum":["success","error","rejected","cancelled"]},` +
	`"row_count":{"type":"integer"},"columns":{"type":"array","items":{"type":"string"}},` +
	`"rows":{"type":"array","items":{"type":"array"}},"truncated":{"type":"boolean"},"error":{"type":"string"}},` +
	`"required":["source","sql","status"]}`

// runs is the Set's tool that answers a call of t.
func (t toolDef) runs() string {
	if t.setTool != "" {
		return t.setTool
	}
	return t.name
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
			IdempotentHint:  t.readOnly,
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
		if p.maxItems > 0 {
			schema["maxItems"] = p.maxItems
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
		return nil, fmt.Errorf("the arguments of %s are %s. Send one statement of a sensible size", t.name, overLimit(len(raw), maxArgBytes))
	}
	args := map[string]json.RawMessage{}
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("the arguments of %s must be a JSON object, not %s", t.name, argsKind(raw))
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
			if len(t.params) == 0 {
				return nil, fmt.Errorf("%s takes no argument %q; it takes no arguments", t.name, name)
			}
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

// overLimit says that n bytes are more than limit, in MiB, or in bytes
// where MiB to one decimal would read as the limit itself.
func overLimit(n, limit int) string {
	size, most := fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)), fmt.Sprintf("%.1f MiB", float64(limit)/(1<<20))
	if size == most {
		return fmt.Sprintf("%d bytes, more than the %d-byte (%s) limit", n, limit, most)
	}
	return fmt.Sprintf("%s, more than the %s limit", size, most)
}

// argsKind names what a call's arguments are instead of an object.
func argsKind(raw json.RawMessage) string {
	if !json.Valid(raw) {
		return "text that is not JSON"
	}
	return jsonline.Kind(raw)
}
