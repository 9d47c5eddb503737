package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// otlpSpan is a span as an OTLP/JSON line holds it.
type otlpSpan struct {
	TraceID           string `json:"traceId"`
	SpanID            string `json:"spanId"`
	ParentSpanID      string `json:"parentSpanId"`
	Name              string `json:"name"`
	Kind              int    `json:"kind"`
	StartTimeUnixNano string `json:"startTimeUnixNano"`
	EndTimeUnixNano   string `json:"endTimeUnixNano"`
	Attributes        []kv   `json:"attributes"`
	Events            []struct {
		Name         string `json:"name"`
		TimeUnixNano string `json:"timeUnixNano"`
		Attributes   []kv   `json:"attributes"`
	} `json:"events"`
	Links []struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	} `json:"links"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
	service string
}

type kv struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string `json:"stringValue"`
		IntValue    *string `json:"intValue"`
		BoolValue   *bool   `json:"boolValue"`
	} `json:"value"`
}

func (s otlpSpan) attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key != key {
			continue
		}
		switch {
		case a.Value.StringValue != nil:
			return *a.Value.StringValue
		case a.Value.IntValue != nil:
			return *a.Value.IntValue
		case a.Value.BoolValue != nil:
			if *a.Value.BoolValue {
				return "true"
			}
			return "false"
		}
	}
	return ""
}

func (s otlpSpan) has(key string) bool {
	for _, a := range s.Attributes {
		if a.Key == key {
			return true
		}
	}
	return false
}

// decodeOTLPJSON reads OTLP/JSON lines into spans.
func decodeOTLPJSON(t *testing.T, data []byte) []otlpSpan {
	t.Helper()
	var out []otlpSpan
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []kv `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatalf("an OTLP/JSON line does not decode: %v\n%s", err, sc.Bytes())
		}
		for _, rs := range req.ResourceSpans {
			service := otlpSpan{Attributes: rs.Resource.Attributes}.attr("service.name")
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					sp.service = service
					out = append(out, sp)
				}
			}
		}
	}
	return out
}

func byName(spans []otlpSpan) map[string]otlpSpan {
	m := map[string]otlpSpan{}
	for _, s := range spans {
		m[s.Name] = s
	}
	return m
}

// frames makes a conversation's frames the way the client or a tap's
// observer classifies them.
type script struct {
	obs *mcp.Observer
	at  time.Time
	evs []mcp.Event
}

func newScript(transport string) *script {
	return &script{obs: mcp.NewObserver(transport), at: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
}

// send adds a message ms milliseconds after the previous one.
func (s *script) send(ms int, dir mcp.Direction, raw string) *mcp.Frame {
	s.at = s.at.Add(time.Duration(ms) * time.Millisecond)
	fs := s.obs.Frames(dir, []byte(raw), "", "", s.at)
	for _, f := range fs {
		s.evs = append(s.evs, mcp.FrameEvent{Frame: f})
	}
	return fs[len(fs)-1]
}

func exportJSON(t *testing.T, cfg Config, opt Options, evs []mcp.Event, end time.Time) []otlpSpan {
	t.Helper()
	var buf bytes.Buffer
	cfg.JSON = &buf
	cfg.Getenv = func(string) string { return "" }
	e, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := e.Conversation(opt)
	for _, ev := range evs {
		c.Observe(ev)
	}
	c.End(end)
	r := e.Close()
	if r.Dropped != 0 || r.Err != nil {
		t.Fatalf("a file export dropped spans: %+v", r)
	}
	return decodeOTLPJSON(t, buf.Bytes())
}

const ms = int64(time.Millisecond)

func nanos(s string) int64 {
	var n int64
	_ = json.Unmarshal([]byte(s), &n)
	return n
}

func TestSpansAsTheConventionsSay(t *testing.T) {
	s := newScript("stdio")
	init := s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2"}}}`)
	s.send(12, mcp.Inbound, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"everything","version":"1"}}}`)
	s.send(1, mcp.Outbound, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := s.send(5, mcp.Outbound, `{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi","api_key":"sk-123"},"_meta":{"progressToken":7}}}`)
	s.send(10, mcp.Inbound, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	s.send(10, mcp.Inbound, `{"jsonrpc":"2.0","id":"a1","result":{"content":[{"type":"text","text":"no"}],"isError":true}}`)
	s.evs = append(s.evs, mcp.DiagnosticEvent{Time: s.at, Diagnostic: &mcp.Diagnostic{Rule: "tools/test-rule", Severity: mcp.SeverityWarning, Frames: []int64{call.Seq + 2}, Message: "odd"}})
	s.send(3, mcp.Outbound, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}`)
	s.send(4, mcp.Inbound, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such prompt"}}`)
	s.send(2, mcp.Outbound, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`)
	s.send(2, mcp.Inbound, `{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}`)
	s.send(2, mcp.Outbound, `{"jsonrpc":"2.0","id":9,"result":{"role":"assistant","content":{"type":"text","text":"x"}}}`)
	end := s.at.Add(50 * time.Millisecond)

	spans := exportJSON(t, Config{Content: true}, Options{Transport: "stdio", Server: "everything-srv", Tap: true}, s.evs, end)
	got := byName(spans)
	for _, name := range []string{"mcp connection everything-srv", "initialize", "tools/call echo", "prompts/get greet", "resources/read", "sampling/createMessage"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no span %q; have %v", name, spanNames(spans))
		}
	}
	if len(spans) != 6 {
		t.Errorf("%d spans, want 6 (a notification is an event, not a span): %v", len(spans), spanNames(spans))
	}
	conn := got["mcp connection everything-srv"]
	for _, sp := range spans {
		if sp.service != "claude-code" {
			t.Errorf("span %q of service %q, want the client's clientInfo name", sp.Name, sp.service)
		}
		if sp.TraceID != conn.TraceID || len(sp.TraceID) != 32 {
			t.Errorf("span %q in trace %q, want the connection's %q (hex)", sp.Name, sp.TraceID, conn.TraceID)
		}
		if sp.Name != conn.Name && sp.ParentSpanID != conn.SpanID {
			t.Errorf("span %q's parent is %q, want the connection %q", sp.Name, sp.ParentSpanID, conn.SpanID)
		}
	}
	if conn.ParentSpanID != "" {
		t.Errorf("the connection span has a parent %q", conn.ParentSpanID)
	}
	if conn.attr(attrServerName) != "everything" || conn.attr(attrProtocol) != "2025-06-18" {
		t.Errorf("connection attributes: %+v", conn.Attributes)
	}
	if nanos(conn.StartTimeUnixNano) != init.Time.UnixNano() || nanos(conn.EndTimeUnixNano) != end.UnixNano() {
		t.Errorf("connection from %s to %s, want the first frame's time to End's", conn.StartTimeUnixNano, conn.EndTimeUnixNano)
	}

	tc := got["tools/call echo"]
	want := map[string]string{attrMethod: "tools/call", attrRequestID: "a1", attrToolName: "echo", attrOperation: "execute_tool",
		attrErrorType: "tool_error", attrTransport: "pipe", attrProtocol: "2025-06-18"}
	for k, v := range want {
		if tc.attr(k) != v {
			t.Errorf("tools/call %s = %q, want %q", k, tc.attr(k), v)
		}
	}
	if tc.Status.Code != 2 {
		t.Errorf("an isError result's status is %d, want 2 (error)", tc.Status.Code)
	}
	if d := nanos(tc.EndTimeUnixNano) - nanos(tc.StartTimeUnixNano); d != 20*ms {
		t.Errorf("tools/call lasted %d ns, want the frames' 20 ms", d)
	}
	if args := tc.attr(attrArguments); !strings.Contains(args, `"hi"`) || strings.Contains(args, "sk-123") {
		t.Errorf("arguments %q: want them, with the api key redacted", args)
	}
	if !strings.Contains(tc.attr(attrResult), `"isError":true`) {
		t.Errorf("result %q", tc.attr(attrResult))
	}
	var events []string
	for _, ev := range tc.Events {
		events = append(events, ev.Name)
	}
	if strings.Join(events, ",") != "notifications/progress,doctor tools/test-rule" {
		t.Errorf("tools/call's events %v: want its progress, then the doctor's finding about its answer", events)
	}
	if tc.Kind != 3 {
		t.Errorf("tools/call kind %d, want 3 (client)", tc.Kind)
	}

	pg := got["prompts/get greet"]
	if pg.attr(attrErrorType) != "-32602" || pg.attr(attrStatusCode) != "-32602" || pg.attr(attrPromptName) != "greet" || pg.Status.Code != 2 {
		t.Errorf("an error answer's span: %+v status %+v", pg.Attributes, pg.Status)
	}
	if rr := got["resources/read"]; rr.attr(attrResourceURI) != "file:///a" || rr.attr(attrErrorType) != errorTypeUnanswered || nanos(rr.EndTimeUnixNano) != end.UnixNano() {
		t.Errorf("an unanswered read: %+v ends %s", rr.Attributes, rr.EndTimeUnixNano)
	}
	if sm := got["sampling/createMessage"]; sm.Kind != 2 || sm.has(attrErrorType) {
		t.Errorf("a server's request: kind %d (want 2, server), attributes %+v", sm.Kind, sm.Attributes)
	}
	var connEvents []string
	for _, ev := range conn.Events {
		connEvents = append(connEvents, ev.Name)
	}
	if strings.Join(connEvents, ",") != "notifications/initialized" {
		t.Errorf("connection events %v", connEvents)
	}
}

func spanNames(spans []otlpSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func TestNoContentWithoutTheFlag(t *testing.T) {
	s := newScript("stdio")
	s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"secret plan"}}}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	spans := exportJSON(t, Config{}, Options{Transport: "stdio"}, s.evs, time.Time{})
	tc := byName(spans)["tools/call echo"]
	if tc.has(attrArguments) || tc.has(attrResult) || tc.has(attrErrorType) || tc.Status.Code == 2 {
		t.Errorf("without --otlp-content: %+v", tc.Attributes)
	}
	if sp := byName(spans)["mcp connection"]; sp.service != "mcpscope" {
		t.Errorf("mcpscope's own session's service is %q", sp.service)
	}
}

func TestTraceparentFromTheClientMakesTheTapsSpanItsChild(t *testing.T) {
	s := newScript("stdio")
	s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"c"}}}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`)
	s.send(1, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	got := byName(exportJSON(t, Config{}, Options{Transport: "stdio", Tap: true}, s.evs, time.Time{}))
	tc, conn := got["tools/call echo"], got["mcp connection"]
	if tc.TraceID != "0af7651916cd43dd8448eb211c80319c" || tc.ParentSpanID != "b7ad6b7169203331" {
		t.Errorf("the tap's span is in trace %s under %s, want the client's", tc.TraceID, tc.ParentSpanID)
	}
	if len(tc.Links) != 1 || tc.Links[0].SpanID != conn.SpanID {
		t.Errorf("links %+v, want the connection %s", tc.Links, conn.SpanID)
	}
}

func TestPropagatedSpanTakesTheIDTheServerWasTold(t *testing.T) {
	var buf bytes.Buffer
	e, err := New(context.Background(), Config{JSON: &buf, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Conversation(Options{Transport: "stdio"})
	tp := c.Traceparent()
	s := newScript("stdio")
	s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"traceparent":"`+tp+`"}}}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	for _, ev := range s.evs {
		c.Observe(ev)
	}
	c.End(time.Time{})
	e.Close()
	sp := byName(decodeOTLPJSON(t, buf.Bytes()))["tools/list"]
	if want := "00-" + sp.TraceID + "-" + sp.SpanID + "-01"; tp != want {
		t.Errorf("sent traceparent %s, the span is %s", tp, want)
	}
}

func TestModernSessionsHaveNoSessionID(t *testing.T) {
	s := newScript("http")
	evs := []mcp.Event{mcp.TransportEvent{Time: s.at, Kind: "http", Fields: []mcp.Field{{Key: "Mcp-Session-Id", Value: "abc"}}}}
	s.evs = evs
	s.send(1, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	s.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	got := byName(exportJSON(t, Config{}, Options{Transport: "http", URL: "http://127.0.0.1:8931/mcp"}, s.evs, time.Time{}))
	tl := got["tools/list"]
	if tl.attr(attrSessionID) != "abc" || tl.attr(attrServerAddress) != "127.0.0.1" || tl.attr(attrServerPort) != "8931" || tl.attr(attrTransport) != "tcp" {
		t.Errorf("legacy HTTP request attributes: %+v", tl.Attributes)
	}
	s2 := newScript("http")
	s2.evs = []mcp.Event{mcp.HandshakeEvent{Time: s2.at, Handshake: &mcp.Handshake{Era: mcp.EraModern, ProtocolVersion: "2026-07-28"}},
		mcp.TransportEvent{Time: s2.at, Kind: "http", Fields: []mcp.Field{{Key: "Mcp-Session-Id", Value: "abc"}}}}
	s2.send(1, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	s2.send(1, mcp.Inbound, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	tl = byName(exportJSON(t, Config{}, Options{Transport: "http"}, s2.evs, time.Time{}))["tools/list"]
	if tl.has(attrSessionID) || tl.attr(attrProtocol) != "2026-07-28" {
		t.Errorf("a 2026-07-28 request: %+v", tl.Attributes)
	}
}

func TestLocalTimeoutIsItsOwnErrorType(t *testing.T) {
	s := newScript("stdio")
	req := s.send(0, mcp.Outbound, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	s.evs = append(s.evs, mcp.LocalErrorEvent{Time: s.at.Add(time.Second), Err: &mcp.LocalError{Kind: mcp.Timeout, Method: "tools/call", ID: "1", ReqSeq: req.Seq}})
	tc := byName(exportJSON(t, Config{}, Options{Transport: "stdio"}, s.evs, time.Time{}))["tools/call slow"]
	if tc.attr(attrErrorType) != "timeout" || nanos(tc.EndTimeUnixNano)-nanos(tc.StartTimeUnixNano) != int64(time.Second) {
		t.Errorf("a timed-out call: %+v", tc.Attributes)
	}
}

func TestRequestsNeverAnsweredStayBounded(t *testing.T) {
	s := newScript("stdio")
	for i := range maxPending + 10 {
		s.send(0, mcp.Outbound, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
	}
	var buf bytes.Buffer
	e, err := New(context.Background(), Config{JSON: &buf, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c := e.Conversation(Options{Transport: "stdio"})
	for _, ev := range s.evs {
		c.Observe(ev)
	}
	if len(c.pending) != maxPending {
		t.Errorf("%d requests followed, want at most %d", len(c.pending), maxPending)
	}
	c.End(time.Time{})
	if r := e.Close(); r.Spans != maxPending+11 {
		t.Errorf("%d spans, want every request and the connection", r.Spans)
	}
}
