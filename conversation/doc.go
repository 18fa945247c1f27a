// Package conversation runs a chat turn: it holds a session's messages and
// history, builds each request to the model, runs the tools the model asks
// for and records the completed turn in both of the session file's lists.
//
// It knows nothing of JSON-RPC or of any editor: the rpc package and the
// `aiq-rpc ask` command drive it through the same Runner.
package conversation
