package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

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
type method func(ctx context.Context, s *Server, req request) (any, error)

// methodTable lists the calls the server answers; initialize reports the
// names.
func methodTable() map[string]method {
	return map[string]method{
		"initialize":        typed(initialize),
		"shutdown":          typed(shutdown),
		"session/new":       typed(sessionNew),
		"session/load":      typed(sessionLoad),
		"session/setSource": typed(sessionSetSource),
		"session/save":      typed(sessionSave),
		"session/list":      typed(sessionList),
		"session/close":     typed(sessionClose),
		"chat/turn":         typed(chatTurn),
		"chat/history":      typed(chatHistory),
		"chat/clear":        typed(chatClear),
		"sources/list":      typed(sourcesList),
		"schema/refresh":    typed(schemaRefresh),
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
func typed[P any](fn func(ctx context.Context, s *Server, req request, p P) (any, error)) method {
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
	text := strings.TrimSpace(string(raw))
	if text == "" || text == "null" {
		return nil
	}
	if text[0] != '{' {
		return fmt.Errorf("params must be an object, not %s", kindOfJSON(text))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fmt.Errorf("%s must be %s, not %s", typeErr.Field, typeName(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return err
	}
	return nil
}

func kindOfJSON(text string) string {
	switch text[0] {
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
