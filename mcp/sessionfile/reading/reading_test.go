package reading

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

const captures = "../../../testdata/captures/"

func read(t *testing.T, path string) *Session {
	t.Helper()
	s, err := ReadFile(path, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roles lists a connection's exchanges as "role method" (lone frames as
// "lone kind method").
func roles(c *Connection) string {
	var out []string
	for _, x := range c.Exchanges {
		switch {
		case x.Role == Lone:
			out = append(out, "lone "+x.Single.Kind.String()+" "+x.Single.Method)
		default:
			s := x.Role.String() + " " + x.Request.Method
			if x.Response == nil {
				s += " (no answer)"
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// Every real client's capture reads as the conversation it was: the
// probe before the handshake (answered -32601 on stdio, by a 400 with id
// null over HTTP), the handshake, the requests, the listed tools, how it
// ended.
func TestCapturesOfRealClients(t *testing.T) {
	for _, tc := range []struct {
		file, roles, client string
		tools               int
		ended               bool
	}{
		{"claude-code-2.1.328-stdio.jsonl", "probe server/discover, handshake initialize, lone notification notifications/initialized, request tools/list, " +
			strings.Repeat("lone notification notifications/tools/list_changed, ", 4) + "", "claude-code", 16, true},
		{"claude-code-2.1.328-http.jsonl", "probe server/discover, handshake initialize, lone notification notifications/initialized, request tools/list", "claude-code", 16, true},
		{"codex-0.169.0-stdio.jsonl", "handshake initialize, lone notification notifications/initialized, " +
			strings.Repeat("lone notification notifications/tools/list_changed, ", 3) + "request tools/list", "codex-mcp-client", 15, true},
		{"gemini-cli-0.61.0-stdio.jsonl", "handshake initialize, lone notification notifications/initialized, request ping, lone notification notifications/tools/list_changed", "mcp-test-client", -1, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := read(t, captures+tc.file)
			if len(s.Connections) != 1 {
				t.Fatalf("%d connections", len(s.Connections))
			}
			c := s.Connections[0]
			want := strings.TrimSuffix(tc.roles, ", ")
			if got := roles(c); !strings.HasPrefix(got, want) && got != want {
				t.Errorf("exchanges:\n got  %s\n want %s", got, want)
			}
			if c.Handshake == nil || c.Handshake.ClientInfo.Name != tc.client || c.HandshakeExchange.Request.Method != mcp.MethodInitialize {
				t.Fatalf("handshake %+v", c.Handshake)
			}
			if tc.tools >= 0 && len(c.Lists[mcp.MethodToolsList]) != tc.tools {
				t.Errorf("%d tools listed, want %d", len(c.Lists[mcp.MethodToolsList]), tc.tools)
			}
			if _, listed := c.Lists[mcp.MethodResourcesList]; listed {
				t.Error("resources are listed, but the client never asked")
			}
			for _, p := range c.Probes() {
				if p.Response == nil || p.Response.Kind != mcp.KindErrorResponse || p.Failed() {
					t.Errorf("the probe %s: answer %v, failed %v", p.Label(), p.Response, p.Failed())
				}
			}
			if o := s.Outcome; !o.Handshake || o.Ended != tc.ended || o.Requests != len(c.Requests()) || o.Answered != o.Requests {
				t.Errorf("outcome %+v: %s", o, o)
			}
		})
	}
}

// A file `call` wrote holds no list lines: the listed tools come from the
// frames, page by page.
func TestListsComeFromTheFrames(t *testing.T) {
	evs := []mcp.Event{
		mcp.StateEvent{State: mcp.StateConnecting},
		frame(1, mcp.Outbound, mcp.KindRequest, "initialize", "1", 0, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		frame(2, mcp.Inbound, mcp.KindResponse, "", "1", 1, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		frame(3, mcp.Outbound, mcp.KindRequest, "tools/list", "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		frame(4, mcp.Inbound, mcp.KindResponse, "", "2", 3, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}`),
		frame(5, mcp.Outbound, mcp.KindRequest, "tools/list", "3", 0, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}`),
		frame(6, mcp.Inbound, mcp.KindResponse, "", "3", 5, `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b"}]}}`),
	}
	s := FromEvents("x", record.Entry{}, rebuilt(t, evs))
	c, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(c.Lists[mcp.MethodToolsList])); got != "[a b]" {
		t.Errorf("tools %s, want [a b] from both pages", got)
	}
	if c.Handshake.ServerInfo.Name != "s" || c.Handshake.ClientInfo.Name != "c" {
		t.Errorf("handshake from the frames: %+v", c.Handshake)
	}
}

// rebuilt writes events as a session file and reads them back, as every
// consumer reads a file.
func rebuilt(t *testing.T, evs []mcp.Event) []mcp.Event {
	t.Helper()
	var buf strings.Builder
	w := record.NewWriter(nopCloser{&buf}, record.Session{Target: "x"})
	for _, ev := range evs {
		w.Event(ev)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := record.ReadEvents(strings.NewReader(buf.String()), true)
	if err != nil {
		t.Fatal(err)
	}
	return f.Events
}

type nopCloser struct{ *strings.Builder }

func (nopCloser) Close() error { return nil }

func names(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		var v struct{ Name string }
		_ = json.Unmarshal(it, &v)
		out = append(out, v.Name)
	}
	return out
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func frame(seq int64, dir mcp.Direction, kind mcp.Kind, method, id string, replyTo int64, raw string) mcp.FrameEvent {
	return mcp.FrameEvent{Frame: &mcp.Frame{Seq: seq, Time: t0.Add(time.Duration(seq) * time.Millisecond), Dir: dir, Kind: kind,
		Method: method, ID: mcp.ID(id), ReplyTo: replyTo, Raw: []byte(raw), Transport: "stdio"}}
}

// A modern request answered input_required and sent again with the input
// responses is one request whose final answer is the retry's; a request
// sent again after its stream broke (no answer, no local error) too; a
// reconnect starts a second connection.
func TestRetriesAndReconnects(t *testing.T) {
	disc := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	discRes := `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`
	evs := []mcp.Event{
		mcp.StateEvent{State: mcp.StateConnecting},
		frame(1, mcp.Outbound, mcp.KindRequest, "server/discover", "1", 0, disc),
		frame(2, mcp.Inbound, mcp.KindResponse, "", "1", 1, discRes),
		frame(3, mcp.Outbound, mcp.KindRequest, "tools/call", "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`),
		frame(4, mcp.Inbound, mcp.KindResponse, "", "2", 3, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{}},"requestState":"s"}}`),
		frame(5, mcp.Outbound, mcp.KindRequest, "tools/call", "3", 0, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","inputResponses":{"a":{}},"requestState":"s"}}`),
		frame(6, mcp.Inbound, mcp.KindResponse, "", "3", 5, `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`),
		frame(7, mcp.Outbound, mcp.KindRequest, "tools/call", "4", 0, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow"}}`),
		frame(8, mcp.Outbound, mcp.KindRequest, "tools/call", "5", 0, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`),
		frame(9, mcp.Inbound, mcp.KindResponse, "", "5", 8, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}]}}`),
		mcp.StateEvent{State: mcp.StateConnecting},
		frame(1, mcp.Outbound, mcp.KindRequest, "server/discover", "1", 0, disc),
		frame(2, mcp.Inbound, mcp.KindResponse, "", "1", 1, discRes),
	}
	s := FromEvents("x", record.Entry{}, rebuilt(t, evs))
	if len(s.Connections) != 2 {
		t.Fatalf("%d connections, want 2", len(s.Connections))
	}
	c := s.Connections[0]
	if got := roles(c); got != "handshake server/discover, request tools/call, retry tools/call, request tools/call (no answer), retry tools/call" {
		t.Errorf("exchanges: %s", got)
	}
	reqs := c.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Final().Answer()), `"content":[]`) ||
		!strings.Contains(string(reqs[1].Final().Answer()), `done`) {
		t.Errorf("final answers: %s / %s", reqs[0].Final().Answer(), reqs[1].Final().Answer())
	}
	if c.Handshake == nil || c.Handshake.Era != mcp.EraModern {
		t.Errorf("handshake %+v", c.Handshake)
	}
	if o := s.Outcome; o.Requests != 2 || o.Answered != 2 || o.Ended {
		t.Errorf("outcome %+v (%s)", o, o)
	}
}

// A tap's capture that ends right after the row saying its client sent it
// SIGTERM (Copilot CLI sends SIGKILL at once) ended by the client's
// doing, not mid-session.
func TestCaptureCutAfterTheClientsSignalEndedByTheClient(t *testing.T) {
	at := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	header := record.Entry{Type: "session", Recorder: record.RecorderTap}
	events := []mcp.Event{
		mcp.TransportEvent{Time: at, Kind: record.TransportClientSignal, Summary: "the tap got SIGTERM (from its client: some clients close a server this way) and passed it on to the server"},
	}
	o := FromEvents("cut.jsonl", header, events).Outcome
	if !o.Ended || o.State != mcp.StateClosed || !strings.Contains(o.Detail, "its client ended the conversation (SIGTERM)") {
		t.Errorf("outcome %+v: %s", o, o)
	}
	if o := FromEvents("cut.jsonl", header, nil).Outcome; o.Ended {
		t.Errorf("a capture that just stops ended: %s", o)
	}
}

// Client sessions whose frames interleave are each a connection of
// their own, read whole: each answer with its own session's request
// (both sessions use the same ids), the handshake of each its own, and
// a connecting row before a session's first frame (as the viewer writes
// one) opens no empty connection.
func TestInterleavedClientSessionsAreEachAConnection(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	var events []mcp.Event
	seq := int64(0)
	frame := func(session int, dir mcp.Direction, kind mcp.Kind, method, id string, replyTo int64, raw string) {
		seq++
		events = append(events, mcp.FrameEvent{Frame: &mcp.Frame{Seq: seq, Time: at.Add(time.Duration(seq) * time.Millisecond), Dir: dir,
			Transport: "http", Kind: kind, Method: method, ID: mcp.ID(id), ReplyTo: replyTo, Raw: []byte(raw), ClientSession: session}})
	}
	initialize := func(session int, client string) {
		frame(session, mcp.Outbound, mcp.KindRequest, mcp.MethodInitialize, "1", 0,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+client+`"}}}`)
	}
	answerInit := func(session int, req int64) {
		frame(session, mcp.Inbound, mcp.KindResponse, "", "1", req,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s"}}}`)
	}
	initialize(1, "first") // 1
	answerInit(1, 1)       // 2
	events = append(events, mcp.StateEvent{Time: at, State: mcp.StateConnecting, Detail: "another client session begins"})
	initialize(2, "second")                                                                                                // 3
	frame(1, mcp.Outbound, mcp.KindRequest, mcp.MethodToolsList, "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`) // 4
	answerInit(2, 3)                                                                                                       // 5
	frame(2, mcp.Outbound, mcp.KindRequest, mcp.MethodToolsList, "2", 0, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`) // 6
	frame(2, mcp.Inbound, mcp.KindResponse, "", "2", 6, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)                  // 7
	frame(1, mcp.Inbound, mcp.KindResponse, "", "2", 4, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)                  // 8

	s := FromEvents("interleaved", record.Entry{Recorder: record.RecorderTap}, events)
	if len(s.Connections) != 2 {
		t.Fatalf("%d connections, want 2", len(s.Connections))
	}
	for i, c := range s.Connections {
		n := i + 1
		want := []string{"first", "second"}[i]
		if c.ClientSession != n || c.Client() != want || c.HandshakeExchange == nil || c.HandshakeExchange.Request.ClientSession != n {
			t.Errorf("connection %d: client session %d, client %q, handshake %v; want %d, %q and its own", i, c.ClientSession, c.Client(), c.HandshakeExchange, n, want)
		}
		reqs := c.Requests()
		if len(reqs) != 1 || reqs[0].Response == nil || reqs[0].Response.ClientSession != n {
			t.Errorf("connection %d: %s", i, roles(c))
		}
		if o := c.Counts(); o.Requests != 1 || o.Answered != 1 {
			t.Errorf("connection %d counts %s", i, o)
		}
	}
	if o := s.Outcome; o.Requests != 2 || o.Answered != 2 {
		t.Errorf("outcome %s, want 2 requests, both answered", o)
	}
}
