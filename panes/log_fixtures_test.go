package panes

import (
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// logT0 is a fixed clock so goldens are deterministic.
var logT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func logAt(ms int) time.Time { return logT0.Add(time.Duration(ms) * time.Millisecond) }

// logFixtureEvents is a short, realistic session: the legacy handshake, a
// tools/list, a failing call, stderr, an invalid line, a timeout and an exit.
func logFixtureEvents() []mcp.Event {
	initReq := &mcp.Frame{Seq: 1, Time: logAt(2), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "initialize", ID: "1",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"dev"}}}`)}
	initRes := &mcp.Frame{Seq: 2, Time: logAt(14), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "1", ReplyTo: 1, ReplyToMethod: "initialize", Latency: 12 * time.Millisecond,
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"demo","version":"1.0.0"}}}`)}
	initd := &mcp.Frame{Seq: 3, Time: logAt(15), Dir: mcp.Outbound, Kind: mcp.KindNotification, Method: "notifications/initialized",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}
	listReq := &mcp.Frame{Seq: 4, Time: logAt(16), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/list", ID: "2",
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	listRes := &mcp.Frame{Seq: 5, Time: logAt(19), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "2", ReplyTo: 4, ReplyToMethod: "tools/list", Latency: 3 * time.Millisecond,
		Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`)}
	callReq := &mcp.Frame{Seq: 6, Time: logAt(1200), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "3",
		Raw: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}`)}
	callErr := &mcp.Frame{Seq: 7, Time: logAt(1234), Dir: mcp.Inbound, Kind: mcp.KindErrorResponse, ID: "3", ReplyTo: 6, ReplyToMethod: "tools/call", Latency: 34 * time.Millisecond,
		ErrorCode: -32602, ErrorMessage: "unknown tool: nope",
		Raw: []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool: nope"}}`)}
	invalid := &mcp.Frame{Seq: 8, Time: logAt(1300), Dir: mcp.Inbound, Kind: mcp.KindInvalid, Problem: "not JSON (a log line on stdout?)",
		Raw: []byte(`Listening on port 3000`)}
	progress := &mcp.Frame{Seq: 9, Time: logAt(1400), Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/message",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`)}
	unknown := &mcp.Frame{Seq: 10, Time: logAt(1500), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "99", UnknownID: true,
		Raw: []byte(`{"jsonrpc":"2.0","id":99,"result":{}}`)}
	slow := &mcp.Frame{Seq: 11, Time: logAt(1600), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "4",
		Raw: []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep"}}`)}
	return []mcp.Event{
		mcp.StateEvent{Time: logAt(0), State: mcp.StateConnecting, Detail: "starting stdio transport"},
		mcp.StateEvent{Time: logAt(1), State: mcp.StateHandshaking, Detail: "era legacy"},
		mcp.FrameEvent{Frame: initReq},
		mcp.StderrEvent{Time: logAt(10), Line: "demo server starting"},
		mcp.FrameEvent{Frame: initRes},
		mcp.FrameEvent{Frame: initd},
		mcp.StateEvent{Time: logAt(15), State: mcp.StateReady, Detail: "legacy era, protocol 2025-11-25"},
		mcp.FrameEvent{Frame: listReq},
		mcp.FrameEvent{Frame: listRes},
		mcp.FrameEvent{Frame: callReq},
		mcp.FrameEvent{Frame: callErr},
		mcp.FrameEvent{Frame: invalid},
		mcp.FrameEvent{Frame: progress},
		mcp.FrameEvent{Frame: unknown},
		mcp.FrameEvent{Frame: slow},
		mcp.LocalErrorEvent{Time: logAt(2600), Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call", ID: "4", ReqSeq: 11, Elapsed: time.Second}},
		mcp.StderrEvent{Time: logAt(2700), Line: "panic: boom"},
		mcp.ExitEvent{Time: logAt(2800), Exit: &mcp.ExitError{Code: 2, LastStderr: []string{"panic: boom"}}},
		mcp.StateEvent{Time: logAt(2800), State: mcp.StateFailed, Detail: "server exited with status 2"},
	}
}
