// Package rpc holds aiq-rpc's front ends, one folder each, siblings over the
// same conversation.Workspace; none imports another:
//
//   - rpc/editor serves our JSON-RPC protocol (docs/protocol.md) over LSP
//     framing, for the VS Code and Neovim plugins and `aiq-rpc ask`;
//   - rpc/acp serves the Agent Client Protocol (docs/acp.md) for ACP editors
//     such as Zed, JetBrains, CodeCompanion and avante;
//   - rpc/mcp serves aiq's SQL tools over the Model Context Protocol
//     (docs/mcp.md) to the agent an editor already has: Copilot agent mode,
//     Cursor, Claude Code, Codex, Continue, Zed.
//
// rpc/internal/jsonline, which reads and checks messages framed one per
// line, is shared by rpc/acp and rpc/mcp; it is no front end.
//
// This package itself holds no code.
package rpc
