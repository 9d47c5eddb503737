package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MaybeRunServer() // when re-executed as the fake or the demo server
	os.Exit(m.Run())
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func frame(seq int64, ms int, dir mcp.Direction, kind mcp.Kind, method, id, raw string) *mcp.Frame {
	return &mcp.Frame{Seq: seq, Time: at(ms), Dir: dir, Kind: kind, Method: method, ID: mcp.ID(id), Raw: []byte(raw), Transport: "stdio"}
}

// sessionEvents is a legacy handshake and discovery, as the client
// publishes them, with fixed times.
func sessionEvents() []mcp.Event {
	initRes := frame(2, 14, mcp.Inbound, mcp.KindResponse, "", "1",
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"demo","version":"1.0.0"}}}`)
	initRes.ReplyTo, initRes.ReplyToMethod, initRes.Latency = 1, "initialize", 12*time.Millisecond
	listRes := frame(5, 19, mcp.Inbound, mcp.KindResponse, "", "2",
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}]}}`)
	listRes.ReplyTo, listRes.ReplyToMethod, listRes.Latency = 4, "tools/list", 3*time.Millisecond
	hs := &mcp.Handshake{
		Era: mcp.EraLegacy, OfferedVersion: "2025-11-25", ProtocolVersion: "2025-11-25",
		ClientCapabilities: json.RawMessage(`{}`),
		ServerCapabilities: json.RawMessage(`{"tools":{"listChanged":true},"logging":{}}`),
		ServerInfo:         mcp.Implementation{Name: "demo", Version: "1.0.0"},
		Duration:           12 * time.Millisecond,
	}
	return []mcp.Event{
		mcp.StateEvent{Time: at(0), State: mcp.StateConnecting, Detail: "starting stdio transport"},
		mcp.StateEvent{Time: at(1), State: mcp.StateHandshaking, Detail: "era legacy"},
		mcp.FrameEvent{Frame: frame(1, 2, mcp.Outbound, mcp.KindRequest, "initialize", "1",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"dev"}}}`)},
		mcp.StderrEvent{Time: at(10), Line: "demo server starting"},
		mcp.FrameEvent{Frame: initRes},
		mcp.FrameEvent{Frame: frame(3, 15, mcp.Outbound, mcp.KindNotification, "notifications/initialized", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		mcp.HandshakeEvent{Time: at(15), Handshake: hs},
		mcp.StateEvent{Time: at(15), State: mcp.StateReady, Detail: "legacy era, protocol 2025-11-25"},
		mcp.FrameEvent{Frame: frame(4, 16, mcp.Outbound, mcp.KindRequest, "tools/list", "2", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)},
		mcp.FrameEvent{Frame: listRes},
		mcp.ListEvent{Time: at(19), Method: "tools/list", Pages: 1, Items: []json.RawMessage{
			json.RawMessage(`{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"}}`),
			json.RawMessage(`{"name":"add","inputSchema":{"type":"object"}}`),
		}},
	}
}

// notifications makes n notification frames with fixed times.
func notifications(first int64, n int) []mcp.Event {
	evs := make([]mcp.Event, n)
	for i := range evs {
		seq := first + int64(i)
		evs[i] = mcp.FrameEvent{Frame: frame(seq, 100+i, mcp.Inbound, mcp.KindNotification, "notifications/message", "",
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"line %d"}}`, seq))}
	}
	return evs
}
