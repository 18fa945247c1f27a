package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// chunkSeeds are stream events of the shapes servers send, and of shapes
// fastChunk must leave to encoding/json.
var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764000000,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"paid "},"finish_reason":null}]}`,
	`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":12}}`,
	`{"choices":[{"index":0,"delta":{"content":null},"finish_reason":""}]}`,
	` { "choices" : [ { "index" : 0 , "delta" : { "content" : "grüße 東京" } } ] } `,
	`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"token":"a","logprob":-0.1,"bytes":[97]}]}}]}`,
	`{"choices":[{"index":1,"delta":{"content":"other choice"}},{"index":0,"delta":{"content":"ours"}}]}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}],"object":"chat.completion"}`,
	`{"choices":[{"index":0,"delta":{"content":"say \"hi\"\n"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"parts"}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"Content":"folded"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"think"},"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"think","content":""}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"a","reasoning":"b"}}]}`,
	`{"choices":[{"index":0,"delta":{"Reasoning_Content":"folded"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":{"effort":"high"}}}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"content_\u0066ilter"}]}`,
	`{"citations":["https://a.example"],"choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"Choices":[{"index":0,"delta":{"content":"folded"}}]}`,
	`{"choices":[{"INDEX":1,"delta":{"content":"folded"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[],"choices":[{"index":0,"delta":{"content":"twice"}}]}`,
	`{"choices":[{"index":0.0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":-1,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":1e0,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":1}]}`,
	`{"choices":[null]}`,
	`{"choices":null}`,
	`{"error":{"message":"overloaded","code":503}}`,
	`{"object":"error","message":"bad"}`,
	`{"object":7,"choices":[]}`,
	`{"choices":[{"index":0,"delta":{"content":"cut"}`,
	`[{"choices":[]}]`,
	`null`,
	`{}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\"}}]}",
	// Malformed where fastChunk skips or reads: encoding/json must reject
	// them all the same.
	`{"id":"a\qb","choices":[{"index":0,"delta":{"content":"x"}}]}`,
	`{"id":"a\u12G4","choices":[]}`,
	"{\"id\":\"tab\there\",\"choices\":[]}",
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"new\nline\"}}]}",
	`{"created":01,"choices":[]}`,
	`{"created":1.,"choices":[]}`,
	`{"created":-,"choices":[]}`,
	`{"created":1e+,"choices":[]}`,
	`{"created":-0.5E-3,"choices":[{"index":0,"delta":{"content":"ok"}}]}`,
	`{"choices":[{"index":00,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"x"}}]} x`,
	`{"choices":[{"index":0,"delta":{"content":"x"}}],}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},}]}`,
	`{"usage":{"a":[true,false,null,{"b":[]}]},"choices":[]}`,
	`{"usage":{"a":[tru]},"choices":[]}`,
	`{"usage":nulL,"choices":[]}`,
	`{"id":"unterminated,"choices":[]}`,
	`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `,"choices":[]}`,
}

// sameAsEncodingJSON checks that decodeChunk reads raw as json.Unmarshal
// does: the same chunk, or an error for both.
func sameAsEncodingJSON(t *testing.T, raw []byte) {
	var fast, slow chunk
	errFast := decodeChunk(raw, &fast)
	errSlow := json.Unmarshal(raw, &slow)
	if (errFast == nil) != (errSlow == nil) {
		t.Fatalf("%s: decodeChunk error %v, encoding/json error %v", raw, errFast, errSlow)
	}
	if errSlow == nil {
		assert.Equal(t, slow, fast, "%s", raw)
	}
}

func TestDecodeChunk(t *testing.T) {
	for _, s := range chunkSeeds {
		sameAsEncodingJSON(t, []byte(s))
	}
	var c chunk
	assert.True(t, fastChunk([]byte(chunkSeeds[0]), &c), "the usual text chunk takes the fast path")
}

func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(sameAsEncodingJSON)
}

// BenchmarkDecodeChunk is the reading of the usual text chunk, with
// encoding/json beside it as the yardstick.
func BenchmarkDecodeChunk(b *testing.B) {
	raw := []byte(chunkSeeds[0])
	b.Run("decodeChunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c chunk
			if err := decodeChunk(raw, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c chunk
			if err := json.Unmarshal(raw, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
