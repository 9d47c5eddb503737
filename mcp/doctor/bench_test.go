package doctor

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
)

// BenchmarkObserveNotification is the doctor's cost per frame of a flood
// of notifications/message, with its allocations.
func BenchmarkObserveNotification(b *testing.B) {
	l := New(Options{})
	l.Observe(mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: "2025-11-25", ServerCapabilities: json.RawMessage(`{"logging":{},"tools":{"listChanged":true}}`)}})
	f := &mcp.Frame{Seq: 10, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/message", Transport: "stdio",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"message 12345"}}`)}
	b.ReportAllocs()
	for b.Loop() {
		l.Observe(mcp.FrameEvent{Frame: f})
	}
}

// BenchmarkObserveDemoToolsList is the doctor's work on the demo server's
// tools/list answer (every tool's schemas compiled and checked): work a
// headless `call` waits for before it exits, to print what the doctor found.
func BenchmarkObserveDemoToolsList(b *testing.B) {
	tools, err := os.ReadFile("../lib/schema/schematest/testdata/demo-tools.json")
	if err != nil {
		b.Fatal(err)
	}
	req := &mcp.Frame{Seq: 4, Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: mcp.MethodToolsList, ID: "2", Transport: "stdio",
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	resp := &mcp.Frame{Seq: 5, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "2", ReplyTo: 4, ReplyToMethod: mcp.MethodToolsList, Transport: "stdio",
		Raw: append(append([]byte(`{"jsonrpc":"2.0","id":2,"result":`), tools...), '}')}
	b.ReportAllocs()
	for b.Loop() {
		l := New(Options{})
		l.Observe(mcp.HandshakeEvent{Handshake: &mcp.Handshake{Era: mcp.EraLegacy, ProtocolVersion: "2025-11-25", ServerCapabilities: json.RawMessage(`{"tools":{"listChanged":true}}`)}})
		l.Observe(mcp.FrameEvent{Frame: req})
		if ds := l.Observe(mcp.FrameEvent{Frame: resp}); len(ds) != 0 {
			b.Fatalf("the demo's tools/list drew %d findings, the first %s", len(ds), ds[0].Rule)
		}
	}
}
