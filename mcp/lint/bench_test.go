package lint

import (
	"encoding/json"
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
