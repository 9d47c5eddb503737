package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// A tap --listen carrying two client sessions of different eras: the
// header describes the session the log looks at (the one the filter
// names, or the selected row's while the log is paused), not whichever
// handshake came last.
func TestHeaderFollowsTheClientSessionUnderView(t *testing.T) {
	hello := func(session int, seq int64, era mcp.Era, version, serverVersion string) []mcp.Event {
		req := frame(seq, int(seq), mcp.Outbound, mcp.KindRequest, "initialize", "1",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"opencode","version":"1"}}}`)
		res := frame(seq+1, int(seq)+1, mcp.Inbound, mcp.KindResponse, "", "1",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"`+version+`","capabilities":{},"serverInfo":{"name":"files","version":"`+serverVersion+`"}}}`)
		res.ReplyTo, res.ReplyToMethod = seq, "initialize"
		req.ClientSession, res.ClientSession = session, session
		hs := &mcp.Handshake{Era: era, ProtocolVersion: version, ServerInfo: mcp.Implementation{Name: "files", Version: serverVersion},
			Duration: time.Millisecond}
		return []mcp.Event{mcp.FrameEvent{Frame: req}, mcp.FrameEvent{Frame: res},
			mcp.HandshakeEvent{Time: res.Time, Handshake: hs, ClientSession: session}}
	}
	m := newTestModel("dark", 120, 35)
	first := hello(1, 1, mcp.EraLegacy, "2025-06-18", "1.0")
	feed(m, append(first, hello(2, 3, mcp.EraModern, "2026-07-28", "2.0")...))

	if h := headerLine(m); !strings.Contains(h, "2026-07-28") || !strings.Contains(h, "files 2.0") {
		t.Fatalf("following the log, the header is %q; want the latest session's protocol and server", h)
	}
	m.logPane.SetFilter("session:1")
	if h := headerLine(m); !strings.Contains(h, "2025-06-18") || !strings.Contains(h, "legacy") || !strings.Contains(h, "files 1.0") {
		t.Errorf("filtered to client session 1, the header is %q; want its legacy handshake (2025-06-18, files 1.0)", h)
	}
	m.logPane.SetFilter("")
	if !m.logPane.SelectFrame(first[0].(mcp.FrameEvent).Frame) {
		t.Fatal("client session 1's initialize is not in the log")
	}
	if h := headerLine(m); !strings.Contains(h, "2025-06-18") || !strings.Contains(h, "files 1.0") {
		t.Errorf("paused on client session 1's initialize, the header is %q; want its handshake", h)
	}
	m.logPane.SetFilter("session:2")
	if h := headerLine(m); !strings.Contains(h, "2026-07-28") || !strings.Contains(h, "modern") {
		t.Errorf("filtered to client session 2, the header is %q; want its modern handshake", h)
	}
}
