package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMaskRoutesOverMCP: the routes of issue 26 that walk past a masked
// column's name (a table function in FROM, a value rebuilt character by
// character in WHERE, an error that quotes it) reach the host's model
// with no value in its text or its structured content, in any case or
// reversed.
func TestMaskRoutesOverMCP(t *testing.T) {
	f := newFixture(t, fixtureOptions{onlySource: true})
	maskStatus(t, f)
	cs := f.connect(nil)
	chars := `'["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u","v","w","x","y","z"]'`
	for _, sql := range []string{
		"SELECT j.value FROM orders o, json_each(json_array(o.status)) j",
		"SELECT group_concat(g.value, '') FROM orders o, json_each('[1,2,3,4,5,6,7,8,9,10]') i, json_each(" + chars + ") g " +
			"WHERE o.id = 1 AND substr(o.status, i.value, 1) = g.value",
		"SELECT group_concat(g.value, '') FROM orders o JOIN json_each('[1,2,3,4,5,6,7,8,9,10]') i " +
			"JOIN json_each(" + chars + ") g ON substr(o.status, i.value, 1) = g.value WHERE o.id = 2",
		"SELECT json(status) FROM orders",
		"SELECT * FROM sqlite_stat1",
	} {
		res := call(t, cs, "execute_sql", map[string]any{"sql": sql})
		body := strings.ToLower(text(res) + mustJSON(t, res.StructuredContent))
		for _, v := range []string{"delivered", "pending", "shipped"} {
			for _, form := range []string{v, reverse(v)} {
				assert.NotContains(t, body, form, "%s reached the host through %s: %s", form, sql, text(res))
			}
		}
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
