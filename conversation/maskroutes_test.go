package conversation_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/modeltest"
	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// maskedSeed is the values of the masked columns of the routes' table:
// none of them may reach the model, in any case or reversed.
var maskedSeed = []string{
	"ann.routes7@example.com", "+1-555-0142-778",
	"o'brien.zx4@example.net", "+1-555-0199-316",
	"cid.q9@example.org", "+44-20-7946-0321",
}

// maskRoute is one way a model may try to read a masked value, and the
// status its statement must end with, so that a route that fails for an
// unrelated reason (a typo) cannot pass unnoticed.
type maskRoute struct {
	tool   string // execute_sql when empty
	args   string // the tool's arguments when not execute_sql
	sql    string
	status string // success, error or rejected
}

type maskRouteEngine struct {
	name   string
	source func(testing.TB) sessionio.Source
	setup  []string
	routes []maskRoute
}

// printable is every printable ASCII character as a JSON array, for the
// routes that rebuild a value character by character.
func printable() string {
	var chars []string
	for c := ' '; c <= '~'; c++ {
		data, _ := json.Marshal(string(c))
		chars = append(chars, string(data))
	}
	return strings.ReplaceAll("["+strings.Join(chars, ",")+"]", "'", "''")
}

var maskRouteEngines = []maskRouteEngine{
	{
		name:   "sqlite",
		source: dbtest.SQLite,
		setup: []string{
			"CREATE TABLE customers (id integer PRIMARY KEY, name text, email text UNIQUE, phone text)",
			seedCustomers,
			"CREATE INDEX customers_phone ON customers(phone)",
			"ANALYZE",
		},
		routes: []maskRoute{
			{sql: "SELECT j.value FROM customers c, json_each(json_array(c.email, c.phone)) j", status: "success"},
			{sql: "SELECT x.value FROM customers c JOIN json_each(json_array(c.email)) x ON 1 = 1", status: "success"},
			{sql: "SELECT group_concat(g.value, '') AS s FROM customers c, json_each('[" + seq(40) + "]') i, json_each('" + printable() + "') g " +
				"WHERE c.id = 2 AND substr(c.email, i.value, 1) = g.value", status: "success"},
			{sql: "SELECT group_concat(g.value, '') AS s FROM customers c JOIN json_each('[" + seq(40) + "]') i " +
				"JOIN json_each('" + printable() + "') g ON substr(c.email, i.value, 1) = g.value WHERE c.id = 1", status: "success"},
			{sql: "SELECT json_object('e', email) AS j, json_array(phone) AS a FROM customers", status: "success"},
			{sql: "SELECT name FROM customers WHERE reverse(email) IS NOT NULL", status: "error"},
			{sql: "SELECT * FROM sqlite_stat1", status: "rejected"},
			{sql: "SELECT * FROM sqlite_stat4", status: "rejected"},
			// What an attacker found: a value split by new lines in an
			// error, and the database's pages read raw.
			{sql: "SELECT json_extract('{}', replace(email, '@', char(10) || '@')) AS x FROM customers WHERE id = 1", status: "error"},
			{sql: "SELECT hex(data) AS h FROM sqlite_dbpage('main')", status: "rejected"},
			{sql: "SELECT CAST(email AS integer) + json(phone) FROM customers", status: "error"},
			{sql: "SELECT reverse_me FROM (SELECT upper(x.e) AS reverse_me FROM (SELECT * FROM customers) x(i, n, e, p)) y", status: "error"},
			{sql: "SELECT upper(v) FROM (SELECT (SELECT email FROM customers WHERE id = 1) AS v) d", status: "success"},
			{sql: "SELECT hex(upper(d.e)) FROM (SELECT email AS e FROM customers) d", status: "success"},
			{sql: "WITH d(i, n, e, p) AS (SELECT * FROM customers) SELECT upper(e) FROM d", status: "success"},
			{sql: "SELECT upper((SELECT * FROM (SELECT email FROM customers) LIMIT 1)) AS u", status: "success"},
			{sql: "SELECT upper(x.v) FROM customers c JOIN (SELECT id, phone AS v FROM customers) x ON x.id = c.id", status: "success"},
			{tool: "profile_column", args: `{"table":"customers","column":"email"}`},
			{tool: "describe_table", args: `{"table":"customers"}`},
		},
	},
	{
		name:   "postgres",
		source: func(tb testing.TB) sessionio.Source { return dbtest.AsSuperuser(dbtest.Postgres(tb)) },
		setup: []string{
			"CREATE TABLE customers (id integer PRIMARY KEY, name text, email text UNIQUE, phone text)",
			seedCustomers,
			"COMMENT ON COLUMN customers.email IS 'such as ann.routes7@example.com'",
			"ANALYZE customers",
		},
		routes: []maskRoute{
			{sql: "SELECT j.value FROM customers c, jsonb_each_text(to_jsonb(c)) j", status: "success"},
			{sql: "SELECT j.value FROM customers c, json_each_text(row_to_json(c)) j", status: "success"},
			{sql: "SELECT x FROM customers, unnest(ARRAY[email, phone]) AS x", status: "success"},
			{sql: "SELECT x FROM customers CROSS JOIN LATERAL upper(email) AS x", status: "success"},
			{sql: "SELECT r.x FROM customers c CROSS JOIN LATERAL (SELECT reverse(c.email) AS x) r", status: "success"},
			{sql: "SELECT string_agg(g.ch, '' ORDER BY i) FROM customers c, generate_series(1,40) i, " +
				"(SELECT chr(n) AS ch FROM generate_series(32,126) n) g WHERE c.id = 1 AND substr(c.email, i, 1) = g.ch", status: "success"},
			{sql: "SELECT string_agg(g.ch, '' ORDER BY i) FROM customers c CROSS JOIN generate_series(1,40) i " +
				"JOIN (SELECT chr(n) AS ch FROM generate_series(32,126) n) g ON substr(c.email, i, 1) = g.ch WHERE c.id = 2", status: "success"},
			{sql: "SELECT json_build_array(email, phone) AS a, ARRAY[email] AS b, to_jsonb(c) AS c FROM customers c", status: "success"},
			{sql: "SELECT y::int FROM (SELECT * FROM customers) s(a,b,c,y)", status: "error"},
			{sql: "SELECT email::int FROM customers WHERE id = 2", status: "error"},
			{sql: "SELECT (chr(10) || reverse(email) || chr(10))::int FROM customers WHERE id = 1", status: "error"},
			{sql: "SELECT id FROM customers WHERE (chr(10) || reverse(email) || chr(10))::date IS NULL AND id = 3", status: "error"},
			{sql: "SELECT reverse(x::text) FROM (SELECT * FROM customers) x", status: "success"},
			{sql: "SELECT reverse(x::text) FROM (TABLE customers) x", status: "success"},
			{sql: "SELECT reverse(x::text) FROM LATERAL (SELECT * FROM customers) x", status: "success"},
			{sql: "SELECT reverse(x::text) FROM customers c JOIN LATERAL (SELECT c.*) x ON true", status: "success"},
			{sql: "SELECT reverse(row_to_json(x)::text) FROM (SELECT * FROM customers) x", status: "success"},
			{sql: "SELECT encode(convert_to(x::text, 'UTF8'), 'base64') FROM (SELECT * FROM customers) x", status: "success"},
			{sql: "SELECT upper(to_json(x)::text) FROM (SELECT * FROM (SELECT * FROM customers) a) x", status: "success"},
			{sql: "SELECT reverse(ROW(x.*)::text) FROM (SELECT * FROM customers) x", status: "success"},
			{sql: "SELECT reverse(x::text) FROM (VALUES (1)) v, LATERAL (SELECT * FROM customers) x", status: "success"},
			{sql: "WITH d(i, n, e, p) AS (SELECT * FROM customers) SELECT reverse(d::text) FROM d", status: "success"},
			{sql: "WITH d AS (SELECT * FROM customers) SELECT encode(convert_to(d::text, 'UTF8'), 'base64') FROM d", status: "success"},
			{sql: "SELECT reverse(c::text) FROM (customers c JOIN (VALUES (1)) v(n) ON true)", status: "success"},
			{sql: "SELECT upper((SELECT * FROM (SELECT email FROM customers) e LIMIT 1)) AS u", status: "success"},
			{sql: "SELECT reverse(array_to_string(ARRAY(SELECT * FROM (SELECT phone FROM customers) p), ',')) AS u", status: "success"},
			{sql: "SELECT count(*) FROM (SELECT * FROM customers) x WHERE x > ROW(0, 'a', 'a', 'a')", status: "success"},
			{sql: "SELECT most_common_vals::text, histogram_bounds::text FROM pg_stats WHERE tablename = 'customers'", status: "rejected"},
			{sql: "SELECT stavalues1::text FROM pg_catalog.pg_statistic", status: "rejected"},
			{sql: "SELECT * FROM pg_stats_ext", status: "rejected"},
			{sql: "SELECT table_to_xml('customers', true, false, '')", status: "success"},
			{sql: "SELECT query_to_xml('select most_common_vals from pg_stats', true, true, '')", status: "success"},
			{tool: "profile_column", args: `{"table":"customers","column":"phone"}`},
			{tool: "describe_table", args: `{"table":"customers"}`},
			{tool: "explain_sql", args: `{"sql":"SELECT x FROM customers, unnest(ARRAY[email, phone]) AS x"}`},
		},
	},
	{
		name:   "mariadb",
		source: func(tb testing.TB) sessionio.Source { return dbtest.AsSuperuser(dbtest.MariaDB(tb)) },
		setup: []string{
			"CREATE TABLE customers (id int PRIMARY KEY, name varchar(40), email varchar(100) UNIQUE " +
				"COMMENT 'such as ann.routes7@example.com', phone varchar(40))",
			seedCustomers,
			"ANALYZE TABLE customers PERSISTENT FOR ALL",
		},
		routes: []maskRoute{
			{sql: "SELECT x FROM customers c, JSON_TABLE(JSON_ARRAY(c.email, c.phone), '$[*]' COLUMNS(x VARCHAR(100) PATH '$')) t", status: "success"},
			{sql: "SELECT GROUP_CONCAT(g.ch ORDER BY s.seq SEPARATOR '') AS s FROM customers c JOIN seq_1_to_40 s " +
				"JOIN (SELECT CHAR(seq USING utf8mb4) AS ch FROM seq_32_to_126) g ON BINARY SUBSTR(c.email, s.seq, 1) = BINARY g.ch WHERE c.id = 2", status: "success"},
			{sql: "SELECT GROUP_CONCAT(g.ch ORDER BY s.seq SEPARATOR '') AS s FROM customers c, seq_1_to_40 s, " +
				"(SELECT CHAR(seq USING utf8mb4) AS ch FROM seq_32_to_126) g WHERE c.id = 1 AND BINARY SUBSTR(c.email, s.seq, 1) = BINARY g.ch", status: "success"},
			{sql: "SELECT JSON_ARRAY(email, phone) AS a, JSON_OBJECT('e', email) AS o FROM customers", status: "success"},
			{sql: "SELECT count(*), CONCAT(email, FLOOR(RAND(0)*2)) AS x FROM customers GROUP BY x", status: ""},
			{sql: "UPDATE customers SET email = (SELECT e FROM (SELECT email AS e FROM customers WHERE id = 2) s) WHERE id = 1", status: "error"},
			{sql: "SELECT min_value, max_value FROM mysql.column_stats", status: "rejected"},
			{sql: "SELECT * FROM information_schema.COLUMN_STATISTICS", status: "rejected"},
			{sql: "SELECT CAST(email AS DOUBLE) FROM customers", status: "success"},
			{sql: "SELECT REVERSE(d.e) FROM (SELECT email AS e FROM customers) d", status: "success"},
			{sql: "SELECT TO_BASE64(x.v) FROM (SELECT * FROM (SELECT phone AS v FROM customers) a) x", status: "success"},
			{sql: "WITH d(i, n, e, p) AS (SELECT * FROM customers) SELECT UPPER(e) FROM d", status: "success"},
			{sql: "SELECT REVERSE((SELECT * FROM (SELECT email FROM customers) e LIMIT 1)) AS u", status: "success"},
			{sql: "SELECT UPPER(x.v) FROM customers c JOIN (SELECT id, phone AS v FROM customers) x ON x.id = c.id", status: "success"},
			{sql: "SELECT REVERSE(v) FROM (WITH d AS (SELECT email AS v FROM customers) SELECT * FROM d) x", status: "success"},
			{tool: "profile_column", args: `{"table":"customers","column":"email"}`},
			{tool: "describe_table", args: `{"table":"customers"}`},
		},
	},
}

const seedCustomers = "INSERT INTO customers VALUES (1, 'Ann', 'ann.routes7@example.com', '+1-555-0142-778'), " +
	"(2, 'Bob', 'o''brien.zx4@example.net', '+1-555-0199-316'), (3, 'Cid', 'cid.q9@example.org', '+44-20-7946-0321')"

func seq(n int) string {
	var s []string
	for i := 1; i <= n; i++ {
		s = append(s, fmt.Sprint(i))
	}
	return strings.Join(s, ",")
}

// TestMaskRoutes drives a real turn on each engine whose scripted model
// tries every route of issue 26 to a masked value: table functions and
// LATERAL over a masked column or row, JSON and array constructors,
// rebuilding a value character by character in WHERE and JOIN, the
// statistics catalogs after ANALYZE, errors through a star with a column
// alias list or a value holding a quote, profile, plan and catalog reads.
// No request the model received holds a seeded value, in any case or
// reversed, while the editor's rows show them.
func TestMaskRoutes(t *testing.T) {
	for _, e := range maskRouteEngines {
		t.Run(e.name, func(t *testing.T) {
			src := e.source(t)
			dbtest.Exec(t, src, e.setup...)
			src.Name = "db"
			src.Mask = []string{"customers.email", "customers.phone"}
			var steps []modeltest.Step
			for i, r := range e.routes {
				id := fmt.Sprintf("c%d", i+1)
				if r.tool == "" {
					steps = append(steps, sqlCall(t, id, r.sql))
				} else {
					steps = append(steps, modeltest.Call(id, r.tool, r.args))
				}
			}
			model := &modeltest.Model{Steps: append(steps, modeltest.Answer("Done."))}
			ws := conversation.NewWorkspace(conversation.Config{
				Home:          sessionio.Home{Dir: t.TempDir()},
				Model:         func() (conversation.Model, error) { return model, nil },
				Sources:       func() ([]sessionio.Source, error) { return []sessionio.Source{src}, nil },
				DefaultSource: src.Name,
				MaxModelCalls: len(steps) + 2,
			})
			t.Cleanup(func() { ws.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			id, err := ws.Default(ctx)
			require.NoError(t, err)
			allow := func(context.Context, conversation.ConfirmRequest) (conversation.Decision, error) {
				return conversation.AllowOnce, nil
			}
			ans, err := ws.Ask(ctx, id, conversation.Question{Query: "show me the emails and phones"}, allow, nil)
			require.NoError(t, err)

			var sqlRoutes []maskRoute
			for _, r := range e.routes {
				if r.tool == "" {
					sqlRoutes = append(sqlRoutes, r)
				}
			}
			require.Len(t, ans.Statements, len(sqlRoutes), "one statement per route")
			shown := false
			for i, r := range sqlRoutes {
				st := ans.Statements[i]
				if r.status != "" {
					assert.Equal(t, r.status, st.Status, "%s: %s", r.sql, st.Error)
				}
				data, _ := json.Marshal(st.Rows)
				shown = shown || strings.Contains(strings.ToLower(string(data)), "ann.routes7@example.com")
			}
			assert.True(t, shown, "the editor's rows show the real values of some route")
			assertNoSeed(t, model.Requests())
		})
	}
}

// assertNoSeed fails for each request body that holds a seeded value in
// any case or reversed.
func assertNoSeed(t *testing.T, reqs []conversation.Request) {
	t.Helper()
	require.NotEmpty(t, reqs)
	for i, r := range reqs {
		data, err := json.Marshal(struct{ Messages, Tools any }{r.Messages, r.Tools})
		require.NoError(t, err)
		var plain any // with JSON escapes undone: a value may hold a quote
		require.NoError(t, json.Unmarshal(data, &plain))
		text, _ := json.Marshal(plain)
		body := string(data) + "\n" + unescaped(plain)
		body = strings.ToLower(body + "\n" + base64Decoded(body) + "\n" + hexDecoded(body))
		// A value split by new lines (a statement may put them in one)
		// is found too.
		body += "\n" + strings.NewReplacer(`\n`, "", "\n", "", `\r`, "", "\r", "").Replace(body)
		for _, v := range maskedSeed {
			for _, form := range []string{v, strings.ToUpper(v), reverse(v)} {
				if strings.Contains(body, strings.ToLower(form)) {
					t.Errorf("request %d holds %q: %s", i+1, form, around(string(text), form))
				}
			}
		}
	}
}

// base64Run is a run of base64 text, which may be cut in lines of 76
// (PostgreSQL's encode), long enough to hold part of a value.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{8,}(?:(?:\\n|\n)[A-Za-z0-9+/]+)*={0,2}`)

// base64Decoded is what each base64 run in text decodes to: a value
// encoded by the statement is no safer than one in clear.
func base64Decoded(text string) string {
	var b strings.Builder
	for _, run := range base64Run.FindAllString(text, -1) {
		run = strings.TrimRight(strings.NewReplacer(`\n`, "", "\n", "").Replace(run), "=")
		data, err := base64.RawStdEncoding.DecodeString(run)
		if err != nil { // a run that does not end where the encoding does
			data, _ = base64.RawStdEncoding.DecodeString(run[:len(run)/4*4])
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// hexRun is a run of hexadecimal digits long enough to hold part of a
// value, as hex() and encode(..., 'hex') write them.
var hexRun = regexp.MustCompile(`(?i)(?:[0-9a-f]{2}){6,}`)

// hexDecoded is what each hex run in text decodes to, its zero bytes left
// out: a raw page of the database holds the values in its bytes.
func hexDecoded(text string) string {
	var b strings.Builder
	for _, run := range hexRun.FindAllString(text, -1) {
		data, _ := hex.DecodeString(run)
		b.Write(bytes.ReplaceAll(data, []byte{0}, nil))
		b.WriteByte('\n')
	}
	return b.String()
}

// unescaped is every string in v, each as it reads.
func unescaped(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
			var inner any // a tool result is JSON in a string
			if json.Unmarshal([]byte(v), &inner) == nil {
				walk(inner)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// around is the text near the first place form is, for the message.
func around(text, form string) string {
	i := strings.Index(strings.ToLower(text), strings.ToLower(form))
	if i < 0 {
		return "(in an unescaped string)"
	}
	return text[max(0, i-200):min(len(text), i+len(form)+100)]
}

// TestMaskScrubsHistory: a mask added while a session is open hides the
// values that earlier turns' results showed when the history is sent
// again.
func TestMaskScrubsHistory(t *testing.T) {
	src := dbtest.SQLite(t)
	dbtest.Exec(t, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, name text, email text UNIQUE, phone text)",
		seedCustomers,
	)
	yaml := fmt.Sprintf("- name: db\n  type: sqlite\n  database: %q\n", src.Database)
	home, path := sourcesHome(t, yaml)
	model := &modeltest.Model{Steps: []modeltest.Step{
		sqlCall(t, "c1", "SELECT id, email, phone FROM customers ORDER BY id"),
		modeltest.Answer("Three customers."),
		modeltest.Answer("Nothing to read."),
	}}
	ws := conversation.NewWorkspace(conversation.Config{
		Home:          home,
		Model:         func() (conversation.Model, error) { return model, nil },
		DefaultSource: "db",
	})
	t.Cleanup(func() { ws.Close() })
	ctx := context.Background()
	id, err := ws.Default(ctx)
	require.NoError(t, err)
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "the customers"}, nil, nil)
	require.NoError(t, err)
	first := len(model.Requests())
	body, _ := json.Marshal(model.Requests()[first-1].Messages)
	require.Contains(t, string(body), "cid.q9@example.org", "before the mask, the model read the values")

	require.NoError(t, os.WriteFile(path, []byte(yaml+"  mask: [customers.email, customers.phone]\n"), 0o600))
	_, err = ws.Ask(ctx, id, conversation.Question{Query: "anything else?"}, nil, nil)
	require.NoError(t, err)
	assertNoSeed(t, model.Requests()[first:])
}
