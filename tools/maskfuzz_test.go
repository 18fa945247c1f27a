package tools

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// fuzzSecrets are the masked values of the fuzz target's table.
var fuzzSecrets = []string{"ann.fz1@example.com", "o'brien.q7@example.net", "+1-555-0142-778", "+44-20-7946-0321"}

// grammar builds a SELECT from a stream of choices: the fuzzer's bytes,
// then zeros (the simplest choice) once they run out.
type grammar struct {
	in    []byte
	depth int
}

func (g *grammar) pick(n int) int {
	if len(g.in) == 0 {
		return 0
	}
	c := int(g.in[0]) % n
	g.in = g.in[1:]
	return c
}

func (g *grammar) oneOf(opts ...string) string { return opts[g.pick(len(opts))] }

// column is a column of the tables in the statement's FROM.
func (g *grammar) column() string {
	return g.oneOf("c.id", "c.name", "c.email", "c.phone", "c.email", "j.value", "email", "phone", "name", "c", "o.note")
}

func (g *grammar) expr() string {
	if g.depth > 4 {
		return g.column()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.pick(18) {
	case 0, 1:
		return g.column()
	case 2:
		return g.oneOf("upper", "lower", "hex", "trim", "quote", "typeof", "length", "unicode", "json_quote", "ltrim") + "(" + g.expr() + ")"
	case 3:
		return fmt.Sprintf("substr(%s, %d, %d)", g.expr(), g.pick(20)+1, g.pick(3)+1)
	case 4:
		return "CAST(" + g.expr() + " AS " + g.oneOf("text", "integer", "blob", "real") + ")"
	case 5:
		return g.expr() + " || " + g.expr()
	case 6:
		return "json_array(" + g.expr() + ", " + g.expr() + ")"
	case 7:
		return "json_object('k', " + g.expr() + ")"
	case 8:
		return "(SELECT " + g.expr() + " FROM customers c LIMIT 1)"
	case 9:
		return "count(" + g.expr() + ")"
	case 10:
		return "group_concat(" + g.expr() + ", '')"
	case 11:
		return "replace(" + g.expr() + ", '@', ' at ')"
	case 12:
		return "CASE WHEN " + g.pred() + " THEN " + g.expr() + " ELSE 'x' END"
	case 13:
		return "min(" + g.expr() + ")"
	case 14:
		return fmt.Sprintf("%d", g.pick(50))
	case 15:
		return "'<masked:email:" + strings.Repeat("ab", 6) + ">'"
	case 16:
		return "instr(" + g.expr() + ", " + g.oneOf("'a'", "'@'", "'5'") + ")"
	}
	return "coalesce(" + g.expr() + ", '')"
}

func (g *grammar) pred() string {
	switch g.pick(7) {
	case 0:
		return g.expr() + " = " + g.expr()
	case 1:
		return g.expr() + " IS NOT NULL"
	case 2:
		return g.expr() + " LIKE '" + g.oneOf("a%", "%@%", "+1%") + "'"
	case 3:
		return fmt.Sprintf("substr(%s, i.value, 1) = ch.value", g.expr())
	case 4:
		return g.expr() + " IN (SELECT " + g.expr() + " FROM customers c)"
	case 5:
		return g.expr() + " > " + g.expr()
	}
	return "c.id = " + fmt.Sprint(g.pick(4))
}

func (g *grammar) from() string {
	base := g.oneOf("customers c", "(SELECT * FROM customers) c", "x c", "customers AS c")
	switch g.pick(5) {
	case 1:
		base += ", json_each(json_array(" + g.expr() + ", " + g.expr() + ")) j"
	case 2:
		base += " JOIN orders o ON o.customer_id = c.id"
	case 3:
		base += ", json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]') i, json_each('" + fuzzChars + "') ch"
	case 4:
		base += " CROSS JOIN json_each(" + g.expr() + ") j"
	}
	return base
}

// fuzzChars is the characters of the secrets as a JSON array.
const fuzzChars = `["a","b","c","e","f","i","l","m","n","o","p","q","r","t","x","z","1","2","4","5","7","8","9","0","@",".","-","+","''"]`

func (g *grammar) statement() string {
	var b strings.Builder
	if g.pick(3) == 1 {
		b.WriteString("WITH x AS (SELECT " + g.oneOf("*", "email, id, name, phone", g.expr()+" AS email, id, name, phone") + " FROM customers) ")
	} else {
		b.WriteString("WITH x AS (SELECT * FROM customers) ")
	}
	b.WriteString("SELECT ")
	for i := range g.pick(3) + 1 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.oneOf("*", "c.*", g.expr(), g.expr()+" AS v"+fmt.Sprint(i), g.expr()))
	}
	b.WriteString(" FROM " + g.from())
	if g.pick(2) == 1 {
		b.WriteString(" WHERE " + g.pred())
	}
	switch g.pick(4) {
	case 1:
		b.WriteString(" GROUP BY " + g.expr())
	case 2:
		b.WriteString(" ORDER BY " + g.expr())
	}
	return b.String()
}

// FuzzMaskSQLite runs random SELECTs, from a small grammar over a table
// with masked columns, through execute_sql on SQLite, and reads what the
// model would: its view, then the scrubber. No secret may be in it, as
// it is, in any case, reversed, hex-encoded, or with its punctuation
// dropped. The corpus starts with the routes of issue 26.
func FuzzMaskSQLite(f *testing.F) {
	src := dbtest.SQLite(f)
	dbtest.Exec(f, src,
		"CREATE TABLE customers (id integer PRIMARY KEY, name text, email text, phone text)",
		"CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer, note text)",
		"INSERT INTO customers VALUES (1, 'Ann', 'ann.fz1@example.com', '+1-555-0142-778'), (2, 'Bob', 'o''brien.q7@example.net', '+44-20-7946-0321')",
		"INSERT INTO orders VALUES (1, 1, 'first'), (2, 2, 'second')",
	)
	src.Mask = []string{"customers.email", "customers.phone"}
	db, err := Open(context.Background(), src, engine.Options{StatementTimeout: 2 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	s := NewSet(db, nil)

	for _, route := range []string{
		"SELECT j.value FROM customers c, json_each(json_array(c.email, c.phone)) j",
		"SELECT group_concat(ch.value, '') FROM customers c, json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]') i, " +
			"json_each('" + fuzzChars + "') ch WHERE c.id = 1 AND substr(c.email, i.value, 1) = ch.value",
		"SELECT group_concat(ch.value, '') FROM customers c JOIN json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]') i " +
			"JOIN json_each('" + fuzzChars + "') ch ON substr(c.email, i.value, 1) = ch.value WHERE c.id = 1",
		"SELECT hex(email) FROM customers",
		"SELECT v FROM (SELECT replace(email, '.', '') AS v FROM customers)",
		"SELECT name FROM customers WHERE email = '<masked:email:abababababab>'",
		"SELECT * FROM sqlite_stat1",
		"SELECT upper(x.e) FROM (SELECT * FROM customers) x(i, n, e, p)",
		"SELECT hex(upper(d.e)) FROM (SELECT email AS e FROM customers) d",
		"WITH d(i, n, e, p) AS (SELECT * FROM customers) SELECT upper(e) FROM d",
		"SELECT upper((SELECT * FROM (SELECT email FROM customers) LIMIT 1)) AS u",
		"SELECT reverse_me FROM (SELECT upper(v) AS reverse_me FROM (SELECT * FROM (SELECT phone AS v FROM customers) a) x) y",
		"SELECT upper(x.v) FROM customers c JOIN (SELECT id, phone AS v FROM customers) x ON x.id = c.id",
		"SELECT upper(v) FROM (SELECT (SELECT email FROM customers WHERE id = 1) AS v) d",
		"SELECT group_concat(upper(v), ',') FROM (SELECT * FROM (SELECT email AS v FROM customers) UNION SELECT 'x')",
	} {
		f.Add([]byte{}, route)
	}
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "")
	f.Add([]byte{2, 17, 5, 3, 0, 4, 1, 9}, "")
	f.Fuzz(func(t *testing.T, choices []byte, raw string) {
		sql := raw
		if sql == "" {
			sql = (&grammar{in: choices}).statement()
		}
		args, _ := json.Marshal(map[string]string{"sql": sql})
		ctx := context.Background()
		res, err := s.Run(ctx, ToolExecuteSQL, args)
		text := ""
		if err != nil {
			text = s.Scrub(ctx, err.Error(), false)
		} else {
			text = s.Scrub(ctx, modelJSON(t, s, res), true)
		}
		if leak := leaked(text); leak != "" {
			t.Fatalf("%s reached the model through\n%s\n%s", leak, sql, text)
		}
	})
}

// leaked returns the first secret that text holds in some form, or "".
func leaked(text string) string {
	var undone any // with JSON escapes undone: a secret may hold a quote
	if json.Unmarshal([]byte(text), &undone) == nil {
		text += "\n" + fmt.Sprint(undone)
	}
	low := strings.ToLower(text)
	bare := alnum(low)
	for _, v := range fuzzSecrets {
		lv := strings.ToLower(v)
		for _, form := range []string{lv, reverseString(lv), strings.ToLower(hex.EncodeToString([]byte(v)))} {
			if strings.Contains(low, form) {
				return form
			}
		}
		if strings.Contains(bare, alnum(lv)) {
			return v + " (without its punctuation)"
		}
	}
	return ""
}

func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
