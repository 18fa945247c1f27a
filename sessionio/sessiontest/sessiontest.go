// Package sessiontest holds test helpers for session files: the files the
// AIQ CLI itself wrote, and a check of the rules by which the CLI refuses a
// file. It is imported by tests only.
package sessiontest

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"
)

//go:embed testdata/cli/*.json
var cliFiles embed.FS

// CLIFiles returns the session files written by the AIQ CLI, by file name.
func CLIFiles() map[string][]byte {
	files := map[string][]byte{}
	names, _ := fs.Glob(cliFiles, "testdata/cli/*.json")
	for _, name := range names {
		data, err := cliFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		files[path.Base(name)] = data
	}
	return files
}

// CLIView is the AIQ CLI's own reading of a session file: the Go structs it
// decodes into with encoding/json.
type CLIView struct {
	Metadata struct {
		CreatedAt    time.Time `json:"created_at"`
		LastUpdated  time.Time `json:"last_updated"`
		DataSource   string    `json:"data_source"`
		DatabaseType string    `json:"database_type"`
	} `json:"metadata"`
	Messages    []CLIMessage      `json:"messages"`
	RawMessages []json.RawMessage `json:"raw_messages"`
}

// CLIMessage is an element of the legacy messages list, as the CLI
// decodes it.
type CLIMessage struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// CheckCLILoadRules applies the five rules by which `aiq -s FILE` refuses a
// session file, exactly as the CLI applies them (see aiq-cli-format.md):
//  1. exactly one JSON object whose fields have the CLI's types;
//  2. metadata.data_source not empty;
//  3. metadata.database_type not empty;
//  4. metadata.created_at present and not the zero time;
//  5. every legacy message has role user or assistant and non-empty content.
//
// Nothing inside raw_messages is checked, as the CLI checks nothing there.
func CheckCLILoadRules(data []byte) error {
	// The CLI decodes with encoding/json, so a wrong type, a time without
	// a zone, a BOM or trailing bytes fail here just as they fail there.
	var f CLIView
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("rule 1: not one JSON object of the CLI's shape: %w", err)
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(data, &object); err != nil {
		return fmt.Errorf("rule 1: not a JSON object: %w", err)
	}
	switch {
	case f.Metadata.DataSource == "":
		return errors.New("rule 2: metadata.data_source is empty")
	case f.Metadata.DatabaseType == "":
		return errors.New("rule 3: metadata.database_type is empty")
	case f.Metadata.CreatedAt.IsZero():
		return errors.New("rule 4: metadata.created_at is missing or zero")
	}
	for i, m := range f.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("rule 5: messages[%d].role is %q", i, m.Role)
		}
		if m.Content == "" {
			return fmt.Errorf("rule 5: messages[%d].content is empty", i)
		}
	}
	return nil
}
