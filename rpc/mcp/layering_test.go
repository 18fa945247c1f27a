package mcp_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoOtherFrontEnd: rpc/mcp depends on conversation and tools, never
// on another front end (docs/architecture.md); rpc/internal holds what
// the front ends share.
func TestNoOtherFrontEnd(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipped: the go command is not on PATH to list the dependencies: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/aiq/aiq-rpc/rpc/") && dep != "github.com/aiq/aiq-rpc/rpc/mcp" && !strings.HasPrefix(dep, "github.com/aiq/aiq-rpc/rpc/internal/") {
			t.Errorf("rpc/mcp depends on the front end %s", dep)
		}
	}
	if !strings.Contains(string(out), "github.com/aiq/aiq-rpc/conversation\n") {
		t.Errorf("go list -deps did not list conversation:\n%s", out)
	}
}
