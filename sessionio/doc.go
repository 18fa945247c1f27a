// Package sessionio reads and writes the AIQ home folder that aiq-rpc shares
// with the AIQ command-line client: session files (sessions/*.json) and the
// configuration (config/config.yaml, config/sources.yaml).
//
// Session files follow the CLI's format exactly, so that a conversation
// started in an editor continues with `aiq -s FILE` and the other way round.
// This package knows the file's layout and the chat messages inside
// raw_messages, normalised as the CLI normalises them, so that Decode reads
// a file in one pass and Encode writes it in one; what makes a history
// valid for the model is package conversation's business.
package sessionio
