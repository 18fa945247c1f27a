package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// findNodeClient returns node for a test that runs the Node package in dir
// (what names the client in messages), or skips the test when node or
// the package named pkg is not installed there; under CI=true or
// AIQ_DBTEST_REQUIRE=1 a missing one fails it instead.
func findNodeClient(t *testing.T, dir, pkg, what string) string {
	node, err := exec.LookPath("node")
	problem := ""
	switch {
	case err != nil:
		problem = "node is not on PATH (Node 20 or newer runs the " + what + " test)"
	default:
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))); err != nil {
			problem = "the " + what + "'s packages are not installed: run 'npm ci' in " + filepath.Clean(filepath.Join("cmd/aiq-rpc", dir))
		}
	}
	if problem == "" {
		return node
	}
	if os.Getenv("CI") == "true" || os.Getenv("AIQ_DBTEST_REQUIRE") == "1" {
		t.Fatal(problem)
	}
	t.Skip(problem)
	return ""
}

// findACPClient finds the client of the official ACP TypeScript SDK.
func findACPClient(t *testing.T) string {
	return findNodeClient(t, acpClientDir, "@agentclientprotocol/sdk", "ACP client")
}

// findMCPClient finds the client of the official MCP TypeScript SDK.
func findMCPClient(t *testing.T) string {
	return findNodeClient(t, mcpClientDir, "@modelcontextprotocol/sdk", "MCP client")
}
