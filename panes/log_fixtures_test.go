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

// logExchangeEvents is a Streamable HTTP session as a person reads it:
// transport rows around each exchange, requests that name their subject
// (a tool, a resource, a prompt, a completion's reference), each way an
// exchange ends (a result, the server's error, a tool's isError, a local
// timeout, still pending) and notifications between them.
func logExchangeEvents() []mcp.Event {
	n := int64(0)
	fr := func(ms int, dir mcp.Direction, kind mcp.Kind, method, id, raw string) *mcp.Frame {
		n++
		return &mcp.Frame{Seq: n, Time: logAt(ms), Dir: dir, Kind: kind, Method: method, ID: mcp.ID(id), Transport: "http", Raw: []byte(raw)}
	}
	resp := func(ms int, req *mcp.Frame, raw string) *mcp.Frame {
		f := fr(ms, mcp.Inbound, mcp.KindResponse, "", string(req.ID), raw)
		f.ReplyTo, f.ReplyToMethod, f.Latency = req.Seq, req.Method, f.Time.Sub(req.Time)
		return f
	}
	http := func(ms int, summary string) mcp.Event {
		return mcp.TransportEvent{Time: logAt(ms), Kind: "http", Summary: summary}
	}
	sse := func(ms int, summary string) mcp.Event {
		return mcp.TransportEvent{Time: logAt(ms), Kind: "sse", Summary: summary}
	}
	initReq := fr(2, mcp.Outbound, mcp.KindRequest, "initialize", "1", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"dev"}}}`)
	initRes := resp(14, initReq, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"everything","version":"2.0.0"}}}`)
	initd := fr(15, mcp.Outbound, mcp.KindNotification, "notifications/initialized", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	echo := fr(100, mcp.Outbound, mcp.KindRequest, "tools/call", "2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	echoRes := resp(121, echo, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}`)
	read := fr(200, mcp.Outbound, mcp.KindRequest, "resources/read", "3", `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///home/someone/projects/a-rather-long-directory-name/and/a/file.txt"}}`)
	readErr := resp(230, read, `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found"}}`)
	readErr.Kind, readErr.ErrorCode, readErr.ErrorMessage = mcp.KindErrorResponse, -32002, "Resource not found"
	prompt := fr(300, mcp.Outbound, mcp.KindRequest, "prompts/get", "4", `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"style":"warm"}}}`)
	msg := fr(310, mcp.Inbound, mcp.KindNotification, "notifications/message", "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"greeter","data":"greeting"}}`)
	promptRes := resp(320, prompt, `{"jsonrpc":"2.0","id":4,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Say hi warmly"}}]}}`)
	complete := fr(400, mcp.Outbound, mcp.KindRequest, "completion/complete", "5", `{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"style","value":"w"}}}`)
	completeRes := resp(410, complete, `{"jsonrpc":"2.0","id":5,"result":{"completion":{"values":["warm"]}}}`)
	fail := fr(500, mcp.Outbound, mcp.KindRequest, "tools/call", "6", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fail\u001b[2J","arguments":{}}}`)
	failRes := resp(520, fail, `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"it broke"}],"isError":true}}`)
	slow := fr(600, mcp.Outbound, mcp.KindRequest, "tools/call", "7", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000}}}`)
	pending := fr(1700, mcp.Outbound, mcp.KindRequest, "tools/call", "8", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"longRunningOperation","arguments":{}}}`)
	return []mcp.Event{
		mcp.StateEvent{Time: logAt(0), State: mcp.StateConnecting, Detail: "starting http transport"},
		mcp.FrameEvent{Frame: initReq},
		http(13, "POST /mcp → 200 application/json 11ms"),
		mcp.FrameEvent{Frame: initRes},
		mcp.FrameEvent{Frame: initd},
		http(16, "POST /mcp → 202 1ms"),
		mcp.StateEvent{Time: logAt(16), State: mcp.StateReady, Detail: "legacy era, protocol 2025-11-25"},
		mcp.FrameEvent{Frame: echo},
		http(120, "POST /mcp → 200 text/event-stream 20ms"),
		sse(120, "SSE priming event, id 3a8c675b on POST #2"),
		mcp.FrameEvent{Frame: echoRes},
		mcp.FrameEvent{Frame: read},
		http(230, "POST /mcp → 200 application/json 30ms"),
		mcp.FrameEvent{Frame: readErr},
		mcp.FrameEvent{Frame: prompt},
		http(309, "POST /mcp → 200 text/event-stream 9ms"),
		mcp.FrameEvent{Frame: msg},
		mcp.FrameEvent{Frame: promptRes},
		mcp.FrameEvent{Frame: complete},
		mcp.FrameEvent{Frame: completeRes},
		mcp.FrameEvent{Frame: fail},
		mcp.FrameEvent{Frame: failRes},
		mcp.FrameEvent{Frame: slow},
		mcp.LocalErrorEvent{Time: logAt(1600), Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call", ID: "7", ReqSeq: slow.Seq, Elapsed: time.Second}},
		mcp.FrameEvent{Frame: pending},
		mcp.StderrEvent{Time: logAt(1750), Line: "still working"},
	}
}
