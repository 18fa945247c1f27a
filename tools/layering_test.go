package tools_test

import (
	"os/exec"
	"strings"
	"testing"
)

// module is the import path every package of the project starts with.
const module = "github.com/aiq/aiq-rpc/"

// mayImport says which packages of tools/ a package of tools/ may import,
// as docs/architecture.md draws them: tools -> guard -> engine -> sqltext,
// and each engine's folder -> engine, sqltext. ok is false for a package
// the layering does not know yet.
func mayImport(pkg string) (allowed []string, ok bool) {
	switch {
	case pkg == "tools":
		return []string{"tools/guard", "tools/guard/scrub", "tools/engine", "tools/engine/*", "tools/sqltext"}, true
	case pkg == "tools/guard":
		return []string{"tools/guard/scrub", "tools/engine", "tools/sqltext"}, true
	case pkg == "tools/guard/scrub":
		return nil, true
	case pkg == "tools/engine":
		return []string{"tools/sqltext"}, true
	case strings.HasPrefix(pkg, "tools/engine/") && !strings.Contains(strings.TrimPrefix(pkg, "tools/engine/"), "/"):
		return []string{"tools/engine", "tools/sqltext"}, true
	case pkg == "tools/sqltext":
		return nil, true
	case pkg == "tools/sqltext/sqltexttest":
		return []string{"tools/sqltext"}, true
	case pkg == "tools/dbtest":
		return nil, true
	}
	return nil, false
}

// testHelpers are the packages any test of tools/ may import.
var testHelpers = []string{"tools/dbtest", "tools/sqltext/sqltexttest"}

func allowedBy(list []string, dep string) bool {
	for _, a := range list {
		if a == dep || strings.HasSuffix(a, "/*") && strings.HasPrefix(dep, strings.TrimSuffix(a, "*")) && !strings.Contains(strings.TrimPrefix(dep, strings.TrimSuffix(a, "*")), "/") {
			return true
		}
	}
	return false
}

// TestLayering: the packages of tools/ import one way only, so that the
// model's tools sit on the trust layer, which sits on the engines, which
// sit on the SQL reader; no engine's folder imports another, and nothing
// below imports tools. Tests may also use the test helpers.
func TestLayering(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipped: the go command is not on PATH to list the imports: %v", err)
	}
	format := `{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`
	out, err := exec.Command(goCmd, "list", "-f", format, module+"tools/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, rest, _ := strings.Cut(line, "|")
		imports, testImports, _ := strings.Cut(rest, "|")
		pkg := strings.TrimPrefix(path, module)
		seen[pkg] = true
		allowed, ok := mayImport(pkg)
		if !ok {
			t.Errorf("%s is not in the layering: add it to mayImport and to docs/architecture.md", pkg)
			continue
		}
		check := func(deps string, test bool) {
			for _, dep := range strings.Fields(deps) {
				dep, ours := strings.CutPrefix(dep, module)
				if !ours || !strings.HasPrefix(dep, "tools") || dep == pkg {
					continue
				}
				if allowedBy(allowed, dep) || test && allowedBy(testHelpers, dep) {
					continue
				}
				what := "imports"
				if test {
					what = "imports in its tests"
				}
				t.Errorf("%s %s %s, against the layering (it may import %v)", pkg, what, dep, allowed)
			}
		}
		check(imports, false)
		check(testImports, true)
	}
	for _, want := range []string{"tools", "tools/guard", "tools/engine", "tools/engine/postgres", "tools/engine/mysql", "tools/engine/sqlite", "tools/sqltext"} {
		if !seen[want] {
			t.Errorf("go list did not list %s:\n%s", want, out)
		}
	}
}

// TestMayImport holds the rule itself: an arrow against the direction is
// caught.
func TestMayImport(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		want     bool
	}{
		{"tools", "tools/guard", true},
		{"tools", "tools/engine/postgres", true},
		{"tools/guard", "tools/engine", true},
		{"tools/guard", "tools", false},
		{"tools/engine", "tools/guard", false},
		{"tools/engine", "tools/engine/postgres", false},
		{"tools/engine/postgres", "tools/engine", true},
		{"tools/engine/postgres", "tools/engine/mysql", false},
		{"tools/engine/postgres", "tools/guard", false},
		{"tools/sqltext", "tools/engine", false},
	} {
		allowed, _ := mayImport(c.pkg)
		if got := allowedBy(allowed, c.dep); got != c.want {
			t.Errorf("%s may import %s: %v, want %v", c.pkg, c.dep, got, c.want)
		}
	}
}
