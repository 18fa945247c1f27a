package sessionio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Members is a JSON object being decoded one known key at a time. Each Take
// method removes its key, so what is left at the end are the keys the
// decoder does not know, kept for the round trip. Errors name the key; the
// caller adds the path above it.
type Members map[string]json.RawMessage

// DecodeMembers decodes raw, which must be a JSON object.
func DecodeMembers(raw json.RawMessage) (Members, error) {
	if k := Kind(raw); k != "an object" {
		return nil, fmt.Errorf("want an object, found %s", k)
	}
	var m Members
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Take removes and returns the member named key.
func (m Members) Take(key string) (json.RawMessage, bool) {
	v, ok := m[key]
	if ok {
		delete(m, key)
	}
	return v, ok
}

// TakeString takes a string member; missing or null reads as "".
func (m Members) TakeString(key string) (string, error) {
	raw, ok := m.Take(key)
	if !ok || IsNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: want a string, found %s", key, Kind(raw))
	}
	return s, nil
}

// TakeText takes a member of any JSON type as text: a string as it is, null
// or missing as "", anything else as compact JSON text with the keys of
// its objects sorted. That is how the AIQ CLI normalises message content,
// so both write the same text for the same message.
func (m Members) TakeText(key string) (string, error) {
	raw, ok := m.Take(key)
	if !ok || IsNull(raw) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as written: no float rounding
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	text, err := Marshal(v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	return string(text), nil
}

// TakeTime takes an RFC 3339 time with a zone; missing or null reads as the
// zero time.
func (m Members) TakeTime(key string) (time.Time, error) {
	raw, ok := m.Take(key)
	if !ok || IsNull(raw) {
		return time.Time{}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, fmt.Errorf("%s: want an RFC 3339 time, found %s", key, Kind(raw))
	}
	t, err := parseTime(key, s)
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// Rest returns the members not taken, or nil when there are none.
func (m Members) Rest() map[string]json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}

// DropCaseVariants removes the members whose keys equal one of fields in
// another case, and returns their keys. The CLI decodes with encoding/json,
// which matches keys without regard to case, so it would read such a key as
// the field; keeping it could only make the two programs disagree.
func (m Members) DropCaseVariants(fields ...string) []string {
	var dropped []string
	for k := range m {
		if slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
			delete(m, k)
			dropped = append(dropped, k)
		}
	}
	slices.Sort(dropped)
	return dropped
}

// IsNull reports whether raw is the JSON null.
func IsNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// Kind names the JSON type of raw for error messages: "an object",
// "an array", "a string", "a number", "a boolean", "null".
func Kind(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return "nothing"
	}
	switch trimmed[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// MarshalWithExtra marshals v, a struct, as JSON without HTML escaping (so
// that SQL such as "a < b" stays readable) and appends the extra members in
// sorted order. It leaves out an extra key that matches a field of v in any
// case, even one omitted as empty: the CLI reads with encoding/json, which
// matches keys without regard to case, and would take it for the field.
func MarshalWithExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSpace(buf.Bytes())
	if len(extra) == 0 {
		return out, nil
	}
	fields := jsonFieldNames(reflect.TypeOf(v))
	if fields == nil || !bytes.HasSuffix(out, []byte("}")) {
		return nil, fmt.Errorf("marshal with extra keys: %T is not a struct", v)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out = bytes.TrimSuffix(out, []byte("}"))
	for _, k := range keys {
		if !json.Valid(extra[k]) {
			return nil, fmt.Errorf("extra key %q: not valid JSON", k)
		}
		name, _ := json.Marshal(k)
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, name...)
		out = append(out, ':')
		out = append(out, extra[k]...)
	}
	return append(out, '}'), nil
}

// jsonFieldNames returns the JSON names of a struct type's fields, or nil
// when t is not a struct.
func jsonFieldNames(t reflect.Type) []string {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	names := []string{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// Marshal is json.Marshal without HTML escaping, as session files are
// written.
func Marshal(v any) ([]byte, error) {
	return MarshalWithExtra(v, nil)
}
