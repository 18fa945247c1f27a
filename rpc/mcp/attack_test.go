package mcp_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// attackEngine is one engine of tools/testdata/attacks.json, which
// tools' TestAttacksFile keeps equal to the classifier's test cases.
type attackEngine struct {
	Engine     string   `json:"engine"`
	State      []string `json:"state"`
	Statements []struct {
		Name string `json:"name"`
		SQL  string `json:"sql"`
	} `json:"statements"`
}

// TestAttacksChangeNothing runs every statement the classifier's tests
// hold to be a write, or no single statement, through execute_sql on each
// engine as a superuser, with a client that declines every elicitation:
// each answer is an error and the database is unchanged.
func TestAttacksChangeNothing(t *testing.T) {
	data, err := os.ReadFile("../../tools/testdata/attacks.json")
	require.NoError(t, err)
	var engines []attackEngine
	require.NoError(t, json.Unmarshal(data, &engines))
	sources := map[string]func(testing.TB) sessionio.Source{"sqlite": dbtest.SQLite, "postgres": dbtest.Postgres, "mariadb": dbtest.MariaDB}
	require.Len(t, engines, len(sources))
	for _, e := range engines {
		t.Run(e.Engine, func(t *testing.T) {
			t.Parallel()
			open := sources[e.Engine]
			require.NotNil(t, open, e.Engine)
			var src sessionio.Source
			f := newFixture(t, fixtureOptions{source: func(tb testing.TB) sessionio.Source {
				src = dbtest.AsSuperuser(open(tb))
				dbtest.Seed(tb, src)
				return src
			}})
			state := func() string {
				var queries []string
				for _, q := range e.State {
					queries = append(queries, q, "SELECT '--'")
				}
				return strings.Join(dbtest.QueryStrings(t, src, queries...), "\n")
			}
			e2 := &elicitor{answer: answer("decline", "")}
			cs := f.connect(e2.options())
			before := state()
			for _, s := range e.Statements {
				res := call(t, cs, "execute_sql", map[string]any{"sql": s.SQL})
				if !res.IsError {
					t.Errorf("%s: %q succeeded: %s", s.Name, s.SQL, text(res))
				}
				if after := state(); after != before {
					t.Fatalf("%s: %q changed the database:\n%s\nbecame\n%s", s.Name, s.SQL, before, after)
				}
			}
			require.NotEmpty(t, e2.requests(), "the writes asked the user")
		})
	}
}
