package editor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"go.lsp.dev/jsonrpc2"
)

// request is a call as a method sees it. params are owned by the method
// for as long as it runs.
type request struct {
	id     jsonrpc2.ID
	method string
	params json.RawMessage
}

// method answers one kind of call.
type method struct {
	call func(ctx context.Context, s *Server, req request) (any, error)
	// inline runs the call on the read loop, which reads nothing else
	// until it returns: for initialize, which must finish before anything
	// after it starts, and for calls that only read the workspace's
	// memory. Every other call is released from the read loop, so that a
	// long one holds up nothing; the release costs a goroutine, which a
	// call of a few microseconds would pay several times over.
	inline bool
}

// methodTable lists the calls the server answers; initialize reports the
// names.
func methodTable() map[string]method {
	return map[string]method{
		"initialize":        {typed(initialize), true},
		"shutdown":          {typed(shutdown), false},
		"session/new":       {typed(sessionNew), false},
		"session/load":      {typed(sessionLoad), false},
		"session/setSource": {typed(sessionSetSource), false},
		"session/save":      {typed(sessionSave), false},
		"session/list":      {typed(sessionList), false},
		"session/close":     {typed(sessionClose), false},
		"chat/turn":         {typed(chatTurn), false},
		"chat/runSql":       {typed(chatRunSQL), false},
		"result/export":     {typed(resultExport), false},
		"chat/history":      {typed(chatHistory), true},
		"chat/clear":        {typed(chatClear), false},
		"sources/list":      {typed(sourcesList), false},
		"schema/refresh":    {typed(schemaRefresh), false},
		"models/list":       {typed(modelsList), false},
		"session/setModel":  {typed(sessionSetModel), false},
		"chat/allowances":   {typed(chatAllowances), true},
		"chat/revoke":       {typed(chatRevoke), true},
	}
}

func methodNames(table map[string]method) []string {
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// typed decodes a call's params into P before the method sees them, so
// that every method gets a checked struct and every bad param the same
// kind of answer.
func typed[P any](fn func(ctx context.Context, s *Server, req request, p P) (any, error)) func(context.Context, *Server, request) (any, error) {
	return func(ctx context.Context, s *Server, req request) (any, error) {
		var p P
		if err := decodeParams(req.params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", req.method, err)
		}
		return fn(ctx, s, req, p)
	}
}

// decodeParams reads params, which must be an object or absent.
func decodeParams(raw json.RawMessage, v any) error {
	text := bytes.TrimSpace(raw)
	if len(text) == 0 || string(text) == "null" {
		return nil
	}
	if text[0] != '{' {
		return fmt.Errorf("params must be an object, not %s", kindOfJSON(text[0]))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("%s must be %s, not %s", typeErr.Field, typeName(typeErr.Type.Kind().String()), typeErr.Value)
		}
		if isTooDeep(err) {
			return errors.New(nestedTooDeeply)
		}
		if errors.As(err, &typeErr) {
			return fmt.Errorf("params must be an object, not %s", typeErr.Value)
		}
		return errors.New("params are not the JSON object this method takes")
	}
	return nil
}

// kindOfJSON names the kind of a JSON value from its first byte.
func kindOfJSON(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func typeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "struct", "map", "ptr":
		return "an object"
	case "slice":
		return "an array"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

// missing is the error of a required param that is absent or empty.
func missing(method, field string) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %s is required", method, field)
}
