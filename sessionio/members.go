package sessionio

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time with a zone", key, s)
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

// RestOfStruct is Rest for an object that the AIQ CLI decodes into a Go
// struct with the given field names. encoding/json matches keys without
// regard to case, so the CLI would read a kept "Metadata" or "data_ſource"
// as the known field; such keys are dropped rather than written back.
func (m Members) RestOfStruct(fields ...string) map[string]json.RawMessage {
	for k := range m {
		if slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
			delete(m, k)
		}
	}
	return m.Rest()
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
// that SQL such as "a < b" stays readable) and appends the extra members
// whose keys v does not already have, in sorted order.
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
	var known map[string]json.RawMessage
	if err := json.Unmarshal(out, &known); err != nil {
		return nil, fmt.Errorf("marshal with extra keys: %T is not an object: %w", v, err)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if _, ok := known[k]; !ok {
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

// Marshal is json.Marshal without HTML escaping, as session files are
// written.
func Marshal(v any) ([]byte, error) {
	return MarshalWithExtra(v, nil)
}
