package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"a":[1,"}"]}}`,
	`{"jsonrpc":"2.0","method":"x","params":{"s":"\"{["}}`,
	` { "ID" : "a\"b" , "Error" : {"code":-1,"message":"m"} } `,
	`{"id":1,"id":2,"result":null}`,
	`{"\u0072esult":[],"method":"m"}`,
	`{"result":1`, `{}`, `{"a":{"b":{"c":[[[]]]}},"result":true}`,
}

// decodeEnvelope must agree with json.Unmarshal on every input.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimSpace(data)
		if len(data) == 0 || data[0] != '{' {
			return
		}
		var want envelope
		werr := json.Unmarshal(data, &want)
		got, gerr := decodeEnvelope(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: errors differ: %v / %v", data, werr, gerr)
		}
		if werr != nil {
			return
		}
		for _, p := range [][2]json.RawMessage{{want.JSONRPC, got.JSONRPC}, {want.ID, got.ID}, {want.Method, got.Method},
			{want.Params, got.Params}, {want.Result, got.Result}, {want.Error, got.Error}} {
			if !bytes.Equal(p[0], p[1]) || (p[0] == nil) != (p[1] == nil) {
				t.Fatalf("%q: json.Unmarshal %q, decodeEnvelope %q", data, p[0], p[1])
			}
		}
	})
}

// Finding 4: a response's result is a view of the frame's bytes, not a
// second copy (a 100 MB result used to be kept twice).
func TestClassifyKeepsOneCopy(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]}}`)
	p := classify(raw)
	if p.kind != KindResponse || len(p.result) < 1<<20 {
		t.Fatalf("classify: kind %v, result %d bytes", p.kind, len(p.result))
	}
	start := uintptr(unsafe.Pointer(&raw[0]))
	at := uintptr(unsafe.Pointer(&p.result[0]))
	if at < start || at >= start+uintptr(len(raw)) {
		t.Fatal("the result is a copy of the frame's bytes")
	}
}
