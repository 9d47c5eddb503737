package doctor

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

// outputFrames drives one linter through listings and tools/call results
// of tool "t", frame by frame, and counts structured-content mismatches.
type outputFrames struct {
	l   *Linter
	seq int64
}

func newOutputFrames() *outputFrames {
	o := &outputFrames{l: New(Options{})}
	o.l.Observe(mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: "2025-11-25", ServerCapabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}})
	return o
}

// exchange observes a request and its response; it returns the rules found.
func (o *outputFrames) exchange(method, params, result string) []string {
	o.seq += 2
	id := fmt.Sprint(o.seq)
	req := &mcp.Frame{Seq: o.seq - 1, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: method, ID: mcp.ID(id), Transport: "stdio",
		Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)}
	resp := &mcp.Frame{Seq: o.seq, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: mcp.ID(id), ReplyTo: o.seq - 1, ReplyToMethod: method, Transport: "stdio",
		Raw: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)}
	var rules []string
	for _, f := range []*mcp.Frame{req, resp} {
		for _, d := range o.l.Observe(mcp.FrameEvent{Frame: f}) {
			rules = append(rules, d.Rule)
		}
	}
	return rules
}

func (o *outputFrames) list(outputSchema string) []string {
	return o.exchange(mcp.MethodToolsList, `{}`, `{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":`+outputSchema+`}]}`)
}

func (o *outputFrames) call(structured string) []string {
	return o.exchange(mcp.MethodToolsCall, `{"name":"t","arguments":{}}`,
		`{"content":[{"type":"text","text":`+fmt.Sprintf("%q", structured)+`}],"structuredContent":`+structured+`}`)
}

func mismatches(rules []string) int {
	n := 0
	for _, r := range rules {
		if r == "tools/structured-content-mismatch" {
			n++
		}
	}
	return n
}

// The outputSchema is compiled once per listing and kept for every result
// of the tool; each result is still judged, and a new listing's schema
// replaces the old one.
func TestOutputSchemaCompiledOncePerListing(t *testing.T) {
	o := newOutputFrames()
	if rules := o.list(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`); len(rules) != 0 {
		t.Fatalf("the listing drew %v", rules)
	}
	if got := mismatches(o.call(`{"n":1}`)); got != 0 {
		t.Fatalf("a matching result drew %d mismatches", got)
	}
	first := o.l.tools["t"].output
	if first == nil {
		t.Fatal("the outputSchema was not kept compiled after the first result")
	}
	if got := mismatches(o.call(`{"n":"one"}`)); got != 1 {
		t.Errorf("a result with a string for an integer drew %d mismatches, want 1", got)
	}
	if o.l.tools["t"].output != first {
		t.Error("the outputSchema was compiled again for the second result")
	}
	// The tool changes: n is now a string.
	o.list(`{"type":"object","properties":{"n":{"type":"string"}},"required":["n"]}`)
	if got := mismatches(o.call(`{"n":"one"}`)); got != 0 {
		t.Errorf("after the new listing, a result matching the new schema drew %d mismatches (judged by the old one?)", got)
	}
	if got := mismatches(o.call(`{"n":1}`)); got != 1 {
		t.Errorf("after the new listing, a result matching only the old schema drew %d mismatches, want 1", got)
	}
}

// BenchmarkObserveToolResult is the doctor's cost of one tools/call result
// with structuredContent checked against the tool's outputSchema.
func BenchmarkObserveToolResult(b *testing.B) {
	o := newOutputFrames()
	o.list(`{"type":"object","properties":{"sum":{"type":"number"},"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"at":{"type":"string","format":"date-time"}},"required":["id"]}}},"required":["sum"]}`)
	result := `{"sum":3,"items":[{"id":"6f1c2b1e-8d7a-4c1e-9f3a-2b5d7e9a1c3f","at":"2026-11-30T10:00:00Z"}]}`
	b.ReportAllocs()
	for b.Loop() {
		if n := mismatches(o.call(result)); n != 0 {
			b.Fatal("the result drew a mismatch")
		}
	}
}
