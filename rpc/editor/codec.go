package editor

import (
	"bytes"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// stdCodec encodes params and results with encoding/json, the package the
// conversation types are written for (their tags, MarshalJSON methods and
// embedded structs), where jsonrpc2's default is encoding/json/v2.
type stdCodec struct{}

func (stdCodec) Marshal(v any) ([]byte, error) {
	switch raw := v.(type) {
	case jsonrpc2.RawMessage:
		return raw, nil
	case json.RawMessage:
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // SQL is full of < and >
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (stdCodec) Unmarshal(data []byte, v any) error {
	if raw, ok := v.(*jsonrpc2.RawMessage); ok {
		*raw = append((*raw)[:0], data...)
		return nil
	}
	return json.Unmarshal(data, v)
}
