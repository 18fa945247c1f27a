// Package editor serves aiq-rpc's JSON-RPC protocol (docs/protocol.md) over
// LSP framing: it decodes each request into a typed struct, calls the
// conversation.Workspace, and maps results and errors to the wire. It holds
// no conversation logic; the workspace never sees the connection.
package editor
