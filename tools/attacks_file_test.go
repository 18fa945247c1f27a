package tools

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/aiq/aiq-rpc/tools/sqltext"
	"github.com/aiq/aiq-rpc/tools/sqltext/sqltexttest"
)

var updateAttacks = flag.Bool("update-attacks", false, "rewrite testdata/attacks.json from sqltexttest.ClassifyCases and the engines' writes")

// attacksPath is the statements that must not change a database unless the
// user says yes, for the tests of the front ends (rpc/mcp), which cannot
// reach this package's test cases.
const attacksPath = "testdata/attacks.json"

// attackEngine is one engine's part of attacks.json: how to read its state
// after dbtest.Seed, and the statements to try.
type attackEngine struct {
	Engine     string   `json:"engine"`
	State      []string `json:"state"`
	Statements []attack `json:"statements"`
}

type attack struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// TestAttacksFile keeps testdata/attacks.json the same as sqltexttest.ClassifyCases'
// writes and unclassifiable statements and each engine's writes; after a
// change to them, run go test ./tools -run TestAttacksFile -update-attacks.
func TestAttacksFile(t *testing.T) {
	var engines []attackEngine
	for _, e := range testEngines {
		ae := attackEngine{Engine: e.name, State: e.state}
		for _, c := range sqltexttest.ClassifyCases {
			// JSON holds no invalid UTF-8, so those cases stay here.
			if c.In(e.dialect) && (c.Want == sqltext.Write || c.WantErr) && c.SQL != "" && utf8.ValidString(c.SQL) {
				ae.Statements = append(ae.Statements, attack{Name: c.Name, SQL: c.SQL})
			}
		}
		for _, w := range e.writes {
			ae.Statements = append(ae.Statements, attack{Name: "write", SQL: w})
		}
		engines = append(engines, ae)
	}
	want, err := json.MarshalIndent(engines, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateAttacks {
		if err := os.MkdirAll(filepath.Dir(attacksPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(attacksPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(attacksPath)
	if err != nil {
		t.Fatalf("%v; run go test ./tools -run TestAttacksFile -update-attacks", err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is not up to date with the test cases; run go test ./tools -run TestAttacksFile -update-attacks", attacksPath)
	}
}
