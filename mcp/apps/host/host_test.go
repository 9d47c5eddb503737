package host

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
)

const testTool = `{"name":"get-time","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://get-time/app.html"}}}`

func testView(t *testing.T, s *Server) *View {
	t.Helper()
	read := `{"contents":[{"uri":"ui://get-time/app.html","mimeType":"text/html;profile=mcp-app","text":"<!doctype html><p>hi</p>"}]}`
	v, err := NewView(json.RawMessage(testTool), json.RawMessage(`{"tz":"UTC"}`),
		json.RawMessage(`{"content":[{"type":"text","text":"12:00"}]}`), nil, json.RawMessage(read))
	if err != nil {
		t.Fatal(err)
	}
	return s.Add(v)
}

// recorder keeps the events OnEvent gets.
type recorder struct {
	mu     sync.Mutex
	events []Event
	added  chan struct{}
}

func newRecorder() *recorder { return &recorder{added: make(chan struct{}, 1000)} }

func (r *recorder) on(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	r.added <- struct{}{}
}

func (r *recorder) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.Close(ctx) //nolint:errcheck // the test is over
	})
	return s
}

func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHostRefusesWrongTokenForeignHostAndOrigin(t *testing.T) {
	s := startServer(t, Options{})
	v := testView(t, s)
	if code, body := get(t, v.URL, nil); code != 200 || !strings.Contains(body, "get-time") {
		t.Fatalf("the view's own URL: %d %q", code, body)
	}
	wrongToken := strings.Replace(v.URL, s.token, strings.Repeat("A", len(s.token)), 1)
	if code, _ := get(t, wrongToken, nil); code != http.StatusNotFound {
		t.Errorf("wrong token: %d, want 404", code)
	}
	if code, _ := get(t, s.HostOrigin()+"/view/"+v.ID, nil); code != http.StatusNotFound {
		t.Errorf("no token: %d, want 404", code)
	}
	_, port, _ := net.SplitHostPort(s.hostAddr)
	for _, host := range []string{"evil.example:" + port, "localhost:" + port, "127.0.0.1"} {
		if code, _ := get(t, v.URL, map[string]string{"Host": host}); code != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d, want 421", host, code)
		}
	}
	for _, origin := range []string{"http://evil.example", s.SandboxOrigin(), "null"} {
		if code, _ := get(t, v.URL, map[string]string{"Origin": origin}); code != http.StatusForbidden {
			t.Errorf("Origin %s: %d, want 403", origin, code)
		}
	}
	if code, _ := get(t, v.URL, map[string]string{"Origin": s.HostOrigin()}); code != 200 {
		t.Errorf("the host's own Origin: %d, want 200", code)
	}
	// The sandbox listener guards the same way, and serves the view's CSP.
	sandbox := s.SandboxOrigin() + "/" + s.token + "/sandbox/" + v.ID
	if code, _ := get(t, sandbox, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("sandbox, foreign Origin: %d, want 403", code)
	}
	resp, err := http.Get(sandbox)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if got := resp.Header.Get("Content-Security-Policy"); got != apps.DefaultCSP {
		t.Errorf("sandbox CSP = %q, want the spec's default", got)
	}
	// A WebSocket from a foreign origin is refused too.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws := "ws://" + s.hostAddr + "/" + s.token + "/ws/" + v.ID
	c, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err == nil {
		_ = c.CloseNow()
		t.Error("a WebSocket from a foreign origin was accepted")
	}
}

func TestHostListensOnLoopbackOnly(t *testing.T) {
	s := startServer(t, Options{})
	for _, a := range []string{s.hostAddr, s.sandboxAddr} {
		host, _, err := net.SplitHostPort(a)
		if err != nil || !net.ParseIP(host).IsLoopback() {
			t.Errorf("listening on %s, not loopback", a)
		}
	}
	if s.hostAddr == s.sandboxAddr {
		t.Error("host and sandbox share an origin")
	}
}

// page is a fake host page: it speaks the WebSocket as host.js does.
type page struct {
	t *testing.T
	c *websocket.Conn
}

func openPage(t *testing.T, s *Server, v *View) *page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+s.hostAddr+"/"+s.token+"/ws/"+v.ID,
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {s.HostOrigin()}}})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close() // the upgrade's answer; the socket is c
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return &page{t: t, c: c}
}

func (p *page) send(from, msg string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]any{"from": from, "msg": json.RawMessage(msg)})
	if err := p.c.Write(context.Background(), websocket.MessageText, b); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next message posted to the view, skipping frame commands.
func (p *page) next() map[string]any {
	p.t.Helper()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, data, err := p.c.Read(ctx)
		cancel()
		if err != nil {
			p.t.Fatal(err)
		}
		var env struct {
			Post map[string]any `json:"post"`
		}
		if json.Unmarshal(data, &env) != nil {
			p.t.Fatalf("unreadable %s", data)
		}
		if env.Post != nil {
			return env.Post
		}
	}
}

func TestBridgeHandshakeInputResultAndForwarding(t *testing.T) {
	rec := newRecorder()
	var fmu sync.Mutex
	var forwarded []string
	s := startServer(t, Options{Theme: "light", OnEvent: rec.on,
		Forward: func(_ context.Context, _ *View, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError, error) {
			fmu.Lock()
			forwarded = append(forwarded, method+" "+string(params))
			fmu.Unlock()
			if strings.Contains(string(params), "broken") {
				return nil, &mcp.RPCError{Code: -32602, Message: "no such tool"}, nil
			}
			return json.RawMessage(`{"content":[{"type":"text","text":"13:00"}]}`), nil, nil
		}})
	v := testView(t, s)
	p := openPage(t, s, v)
	p.send("sandbox", `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`)
	ready := p.next()
	if ready["method"] != "ui/notifications/sandbox-resource-ready" || !strings.Contains(ready["params"].(map[string]any)["html"].(string), "<p>hi</p>") {
		t.Fatalf("after proxy-ready: %v", ready)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"appInfo":{"name":"t","version":"1"},"appCapabilities":{},"protocolVersion":"2026-01-26"}}`
	p.send("view", init)
	ans := p.next()
	res, _ := ans["result"].(map[string]any)
	hc, _ := res["hostContext"].(map[string]any)
	if ans["id"] != float64(1) || hc["theme"] != "light" || hc["locale"] != "en-US" || hc["displayMode"] != "inline" || hc["containerDimensions"] == nil {
		t.Fatalf("ui/initialize answered %v", ans)
	}
	p.send("view", `{"jsonrpc":"2.0","method":"ui/notifications/initialized","params":{}}`)
	if m := p.next(); m["method"] != "ui/notifications/tool-input" || m["params"].(map[string]any)["arguments"].(map[string]any)["tz"] != "UTC" {
		t.Fatalf("first after initialized: %v", m)
	}
	if m := p.next(); m["method"] != "ui/notifications/tool-result" {
		t.Fatalf("second after initialized: %v", m)
	}
	p.send("view", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-time","arguments":{}}}`)
	if m := p.next(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("tools/call answered %v", m)
	}
	p.send("view", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"broken"}}`)
	if m := p.next(); m["id"] != float64(3) || m["error"].(map[string]any)["code"] != float64(-32602) {
		t.Fatalf("a failing tools/call answered %v", m)
	}
	fmu.Lock()
	defer fmu.Unlock()
	if len(forwarded) != 2 || forwarded[0] != `tools/call {"name":"get-time","arguments":{}}` {
		t.Errorf("forwarded %q", forwarded)
	}
	p.send("view", `{"jsonrpc":"2.0","id":4,"method":"ui/open-link","params":{"url":"file:///etc/passwd"}}`)
	if m := p.next(); m["result"].(map[string]any)["isError"] != true {
		t.Fatalf("a file: link answered %v", m)
	}
	p.send("view", `{"jsonrpc":"2.0","id":5,"method":"ui/request-display-mode","params":{"mode":"fullscreen"}}`)
	if m := p.next(); m["result"].(map[string]any)["mode"] != "fullscreen" {
		t.Fatalf("display mode answered %v", m)
	}
	if m := p.next(); m["method"] != "ui/notifications/host-context-changed" {
		t.Fatalf("after a display mode change: %v", m)
	}
	p.send("view", `{"jsonrpc":"2.0","id":6,"method":"ui/download-file","params":{}}`)
	if m := p.next(); m["error"].(map[string]any)["code"] != float64(codeMethodNotFound) {
		t.Fatalf("an unoffered method answered %v", m)
	}
	// The log has the view's messages exactly as sent, both ways, in order.
	var sawInit, sawProblem bool
	for _, e := range rec.snapshot() {
		if e.Kind == KindBridge && e.FromView && string(e.Raw) == init {
			sawInit = true
		}
		if e.Kind == KindProblem && strings.Contains(e.Text, "no such tool") {
			sawProblem = true
		}
	}
	if !sawInit {
		t.Error("ui/initialize is not in the log byte for byte")
	}
	if !sawProblem {
		t.Error("the failed view request is not a problem row")
	}
}

func TestBridgeReadOnlyAnswersTheViewsRequestsWithAnError(t *testing.T) {
	rec := newRecorder()
	s := startServer(t, Options{OnEvent: rec.on, ReadOnly: "the source is a tap's capture"})
	v := testView(t, s)
	p := openPage(t, s, v)
	p.send("view", `{"jsonrpc":"2.0","id":"a","method":"resources/read","params":{"uri":"ui://x"}}`)
	m := p.next()
	e, _ := m["error"].(map[string]any)
	if m["id"] != "a" || e == nil || !strings.Contains(e["message"].(string), "tap's capture") {
		t.Fatalf("read-only answered %v", m)
	}
}

func TestBridgeSaysWhenTheViewNeverInitialises(t *testing.T) {
	rec := newRecorder()
	s := startServer(t, Options{OnEvent: rec.on, InitTimeout: 50 * time.Millisecond})
	v := testView(t, s)
	p := openPage(t, s, v)
	p.send("sandbox", `{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}`)
	deadline := time.After(5 * time.Second)
	for {
		for _, e := range rec.snapshot() {
			if e.Kind == KindProblem && strings.Contains(e.Text, "no ui/initialize") {
				return
			}
		}
		select {
		case <-rec.added:
		case <-deadline:
			t.Fatal("no problem row for a view that never initialised")
		}
	}
}

func TestNewViewSaysWhatIsMissing(t *testing.T) {
	for name, c := range map[string]struct{ tool, read, want string }{
		"no template":   {`{"name":"x"}`, `{"contents":[]}`, "names no template"},
		"no content":    {testTool, `{"contents":[]}`, "no content"},
		"no text":       {testTool, `{"contents":[{"uri":"ui://get-time/app.html"}]}`, "neither text nor blob"},
		"not an object": {testTool, `[]`, "not readable"},
	} {
		_, err := NewView(json.RawMessage(c.tool), nil, nil, nil, json.RawMessage(c.read))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	v, err := NewView(json.RawMessage(testTool), nil, nil, nil,
		json.RawMessage(`{"contents":[{"uri":"ui://get-time/app.html","mimeType":"text/html;profile=mcp-app","text":"x","_meta":{"ui":{"csp":{"resourceDomains":["https://cdn.example"]}}}}]}`))
	if err != nil || !strings.Contains(v.Resource.CSP, "script-src 'self' 'unsafe-inline' https://cdn.example") {
		t.Errorf("declared CSP: %v %q", err, v.Resource.CSP)
	}
}

// A view's tools/call of a tool hidden from apps is refused and is a
// finding; a tool visible to apps goes through.
func TestBridgeRefusesAToolHiddenFromApps(t *testing.T) {
	rec := newRecorder()
	sent := 0
	var mu sync.Mutex
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"model-only","_meta":{"ui":{"visibility":["model"]}}}`),
		json.RawMessage(`{"name":"for-apps","_meta":{"ui":{"visibility":["app"]}}}`),
	}
	s := startServer(t, Options{OnEvent: rec.on, Tools: func() []json.RawMessage { return tools },
		Forward: func(context.Context, *View, string, json.RawMessage) (json.RawMessage, *mcp.RPCError, error) {
			mu.Lock()
			sent++
			mu.Unlock()
			return json.RawMessage(`{"content":[]}`), nil, nil
		}})
	v := testView(t, s)
	p := openPage(t, s, v)
	p.send("view", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"model-only","arguments":{}}}`)
	if m := p.next(); m["error"] == nil {
		t.Fatalf("a model-only tool was called for the view: %v", m)
	}
	p.send("view", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"for-apps","arguments":{}}}`)
	if m := p.next(); m["result"] == nil {
		t.Fatalf("an app tool was refused: %v", m)
	}
	mu.Lock()
	defer mu.Unlock()
	if sent != 1 {
		t.Errorf("%d calls reached the server, want 1", sent)
	}
	var found bool
	for _, d := range Findings(v) {
		found = found || d.Rule == RuleHiddenTool && strings.Contains(d.Message, "model-only")
	}
	if !found {
		t.Errorf("no finding for the hidden tool: %v", Findings(v))
	}
}

func TestReadCapturedCall(t *testing.T) {
	req := &mcp.Frame{Kind: mcp.KindRequest, Method: mcp.MethodToolsCall, Raw: []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"clock"}}`)}
	ok := &mcp.Frame{Kind: mcp.KindResponse, Raw: []byte(`{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`)}
	failed := &mcp.Frame{Kind: mcp.KindErrorResponse, Raw: []byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"no"}}`)}
	c, isCall := ReadCapturedCall(req, ok, true)
	if !isCall || c.Name != "clock" || string(c.Arguments) != `{}` || string(c.Result) != `{"content":[]}` {
		t.Errorf("answered call: %+v %v", c, isCall)
	}
	if c, _ := ReadCapturedCall(req, ok, false); c.Result != nil {
		t.Error("the result was read without withResult")
	}
	if c, isCall := ReadCapturedCall(req, failed, true); !isCall || c.Result != nil {
		t.Errorf("a call answered with an error has a result: %+v", c)
	}
	list := &mcp.Frame{Kind: mcp.KindRequest, Method: mcp.MethodToolsList, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}
	if _, isCall := ReadCapturedCall(list, nil, true); isCall {
		t.Error("tools/list read as a call")
	}
}
