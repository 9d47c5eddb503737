package demo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/mcp/demo"
)

// rawPeer speaks newline-delimited JSON-RPC to a demo server over io.Pipe,
// so the test sees exactly the bytes a debugger would.
type rawPeer struct {
	t      *testing.T
	w      *io.PipeWriter
	lines  chan string
	nextID int
	// notes are the server's notifications seen so far, in order.
	notes []map[string]any
}

func newRawPeer(t *testing.T) *rawPeer {
	t.Helper()
	return newRawPeerOn(t, demo.NewServer())
}

func newRawPeerOn(t *testing.T, s *sdkmcp.Server) *rawPeer {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ss, err := s.Connect(context.Background(), &sdkmcp.IOTransport{Reader: toServerR, Writer: fromServerW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, w: toServerW, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(fromServerR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = toServerW.Close()
		_ = ss.Wait()
		_ = fromServerR.Close()
	})
	return p
}

// modernMeta is the per-request _meta of the 2026-07-28 protocol.
func modernMeta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "0"},
	}
}

// send writes one message and returns the request id it used.
func (p *rawPeer) send(method string, params map[string]any) int {
	p.t.Helper()
	p.nextID++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(p.w, "%s\n", msg); err != nil {
		p.t.Fatalf("writing %s: %v", method, err)
	}
	return p.nextID
}

func (p *rawPeer) notify(method string, params map[string]any) {
	p.t.Helper()
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(p.w, "%s\n", msg); err != nil {
		p.t.Fatalf("writing %s: %v", method, err)
	}
}

// next reads until a message satisfies match, recording notifications.
func (p *rawPeer) next(what string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%s: server closed the connection", what)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				p.t.Fatalf("%s: server wrote non-JSON %q", what, line)
			}
			if _, isNote := m["id"]; !isNote {
				p.notes = append(p.notes, m)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("%s: nothing arrived", what)
		}
	}
}

// call sends a request and returns its response.
func (p *rawPeer) call(method string, params map[string]any) map[string]any {
	p.t.Helper()
	id := p.send(method, params)
	return p.next(method, func(m map[string]any) bool { return m["id"] == float64(id) })
}

// notesOf returns the params of the recorded notifications of method.
func (p *rawPeer) notesOf(method string) []map[string]any {
	var out []map[string]any
	for _, n := range p.notes {
		if n["method"] == method {
			params, _ := n["params"].(map[string]any)
			out = append(out, params)
		}
	}
	return out
}

func result(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	r, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in %v", resp)
	}
	return r
}

func TestModernRawDiscoverAndToolsList(t *testing.T) {
	p := newRawPeer(t)
	disc := result(t, p.call("server/discover", map[string]any{"_meta": modernMeta(map[string]any{})}))
	versions, _ := disc["supportedVersions"].([]any)
	if !slices.Contains(versions, any("2026-07-28")) || !slices.Contains(versions, any("2024-11-05")) {
		t.Errorf("supportedVersions = %v", versions)
	}
	if disc["resultType"] != "complete" || disc["cacheScope"] != "public" {
		t.Errorf("discover = %v", disc)
	}
	if ttl, _ := disc["ttlMs"].(float64); ttl != 60000 {
		t.Errorf("discover ttlMs = %v", disc["ttlMs"])
	}
	if disc["instructions"] == "" {
		t.Error("discover has no instructions")
	}
	caps, _ := disc["capabilities"].(map[string]any)
	for _, c := range []string{"tools", "resources", "prompts", "logging", "completions"} {
		if _, ok := caps[c]; !ok {
			t.Errorf("discover capabilities lack %s: %v", c, caps)
		}
	}
	// The server identifies itself in _meta, not in a serverInfo field.
	meta, _ := disc["_meta"].(map[string]any)
	if si, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any); si["name"] != "mcpscope-demo" {
		t.Errorf("discover _meta = %v", meta)
	}

	list := result(t, p.call("tools/list", map[string]any{"_meta": modernMeta(map[string]any{})}))
	tools, _ := list["tools"].([]any)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if len(names) != len(demo.InputSchemas) {
		t.Errorf("modern tools/list = %v", names)
	}
	if list["resultType"] != "complete" || list["cacheScope"] != "public" || list["ttlMs"] != 60000.0 {
		t.Errorf("tools/list result = %v", list)
	}
	clock := result(t, p.call("resources/read", map[string]any{"_meta": modernMeta(map[string]any{}), "uri": "demo://clock"}))
	if clock["ttlMs"] != 0.0 {
		t.Errorf("clock ttlMs = %v, want 0 (it changes)", clock["ttlMs"])
	}
}

func TestModernRawWithoutMetaIsLegacy(t *testing.T) {
	p := newRawPeer(t)
	// Without the modern _meta, discover is not a known method and anything
	// but initialize is refused before the handshake.
	if resp := p.call("server/discover", map[string]any{}); resp["error"] == nil {
		t.Errorf("discover without _meta = %v", resp)
	}
	if resp := p.call("tools/list", map[string]any{}); resp["error"] == nil {
		t.Errorf("tools/list before initialize = %v", resp)
	}
}

func TestModernRawAskUserIsInputRequired(t *testing.T) {
	p := newRawPeer(t)
	elicitCaps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	args := map[string]any{"message": "Who are you?"}
	first := result(t, p.call("tools/call", map[string]any{"_meta": modernMeta(elicitCaps), "name": "ask_user", "arguments": args}))
	if first["resultType"] != "input_required" {
		t.Fatalf("first round = %v", first)
	}
	// go-sdk v1.8.0 writes "content": null here (CallToolResult.Content has
	// no omitempty); anything non-null would be a real mix of content and
	// inputRequests.
	if c, ok := first["content"]; ok && c != nil {
		t.Errorf("input_required result carries content: %v", first)
	}
	ir, _ := first["inputRequests"].(map[string]any)["ask_user"].(map[string]any)
	params, _ := ir["params"].(map[string]any)
	if ir["method"] != "elicitation/create" || params["mode"] != "form" || params["message"] != "Who are you?" || params["requestedSchema"] == nil {
		t.Errorf("inputRequests = %v", first["inputRequests"])
	}
	state, _ := first["requestState"].(string)
	if state == "" {
		t.Fatal("no requestState")
	}

	answer := map[string]any{"ask_user": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "colour": "red", "subscribe": false}}}
	second := result(t, p.call("tools/call", map[string]any{
		"_meta": modernMeta(elicitCaps), "name": "ask_user", "arguments": args,
		"inputResponses": answer, "requestState": state,
	}))
	if second["resultType"] != "complete" || second["isError"] == true {
		t.Fatalf("retry = %v", second)
	}
	sc, _ := second["structuredContent"].(map[string]any)
	if content, _ := sc["content"].(map[string]any); sc["action"] != "accept" || content["name"] != "Ada" || content["subscribe"] != false {
		t.Errorf("retry structuredContent = %v", sc)
	}

	// A forged requestState is refused as a tool error.
	forged := result(t, p.call("tools/call", map[string]any{
		"_meta": modernMeta(elicitCaps), "name": "ask_user", "arguments": args,
		"inputResponses": answer, "requestState": "Zm9v.YmFy",
	}))
	if forged["isError"] != true || forged["resultType"] != "complete" {
		t.Errorf("forged requestState = %v", forged)
	}

	// Capabilities are per request in the modern era.
	bare := result(t, p.call("tools/call", map[string]any{"_meta": modernMeta(map[string]any{}), "name": "ask_user", "arguments": args}))
	if bare["isError"] != true {
		t.Errorf("ask_user without elicitation capability = %v", bare)
	}
}

func TestModernRawSamplingAndRootsAreInputRequired(t *testing.T) {
	p := newRawPeer(t)
	caps := map[string]any{"sampling": map[string]any{}, "roots": map[string]any{}}
	r := result(t, p.call("tools/call", map[string]any{"_meta": modernMeta(caps), "name": "ask_model", "arguments": map[string]any{"prompt": "hi"}}))
	if ir, _ := r["inputRequests"].(map[string]any)["ask_model"].(map[string]any); r["resultType"] != "input_required" || ir["method"] != "sampling/createMessage" {
		t.Errorf("ask_model = %v", r)
	}
	r = result(t, p.call("tools/call", map[string]any{"_meta": modernMeta(caps), "name": "list_roots", "arguments": map[string]any{}}))
	if ir, _ := r["inputRequests"].(map[string]any)["list_roots"].(map[string]any); r["resultType"] != "input_required" || ir["method"] != "roots/list" {
		t.Errorf("list_roots = %v", r)
	}
	state := r["requestState"]
	r = result(t, p.call("tools/call", map[string]any{
		"_meta": modernMeta(caps), "name": "list_roots", "arguments": map[string]any{},
		"inputResponses": map[string]any{"list_roots": map[string]any{"roots": []any{map[string]any{"uri": "file:///src", "name": "src"}}}},
		"requestState":   state,
	}))
	content, _ := r["content"].([]any)
	if len(content) == 0 || !strings.Contains(content[0].(map[string]any)["text"].(string), "file:///src (src)") {
		t.Errorf("list_roots retry = %v", r)
	}
}

func TestModernRawProgressAndLogging(t *testing.T) {
	p := newRawPeer(t)
	meta := modernMeta(map[string]any{})
	meta["progressToken"] = "tok"
	r := result(t, p.call("tools/call", map[string]any{"_meta": meta, "name": "slow_count", "arguments": map[string]any{"steps": 2, "delay_ms": 1}}))
	if got := p.notesOf("notifications/progress"); r["isError"] == true || len(got) != 2 || got[1]["progress"] != 2.0 || got[1]["progressToken"] != "tok" {
		t.Errorf("progress = %v (result %v)", got, r)
	}

	// No logLevel in _meta: the server must stay silent.
	result(t, p.call("tools/call", map[string]any{"_meta": modernMeta(map[string]any{}), "name": "log_burst", "arguments": map[string]any{"count": 2}}))
	if got := p.notesOf("notifications/message"); len(got) != 0 {
		t.Errorf("log messages without logLevel: %v", got)
	}
	meta = modernMeta(map[string]any{})
	meta["io.modelcontextprotocol/logLevel"] = "debug"
	result(t, p.call("tools/call", map[string]any{"_meta": meta, "name": "log_burst", "arguments": map[string]any{"count": 2, "level": "error"}}))
	if got := p.notesOf("notifications/message"); len(got) != 2 || got[0]["level"] != "error" {
		t.Errorf("log messages = %v", got)
	}
}

func TestModernRawClockSubscription(t *testing.T) {
	p := newRawPeerOn(t, demo.NewServerWithClock(10*time.Millisecond))
	id := p.send("subscriptions/listen", map[string]any{
		"_meta":         modernMeta(map[string]any{}),
		"notifications": map[string]any{"resourceSubscriptions": []any{"demo://clock"}},
	})
	ack := p.next("acknowledged", func(m map[string]any) bool { return m["method"] == "notifications/subscriptions/acknowledged" })
	upd := p.next("resources/updated", func(m map[string]any) bool { return m["method"] == "notifications/resources/updated" })
	params, _ := upd["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if params["uri"] != "demo://clock" || meta["io.modelcontextprotocol/subscriptionId"] != float64(id) {
		t.Errorf("update = %v (ack %v)", upd, ack)
	}
	// Cancelling the listen ends the subscription and its response arrives.
	p.notify("notifications/cancelled", map[string]any{"requestId": id})
	p.next("listen end", func(m map[string]any) bool { return m["id"] == float64(id) })
}

// TestModernSDKClient lets the SDK client negotiate on its own: it probes
// server/discover, goes modern, and its MRTR middleware answers input
// requests through the same handlers a legacy client uses.
func TestModernSDKClient(t *testing.T) {
	rec := newRecorder()
	cs := connect(t, demo.NewServer(), rec, "")
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", v)
	}
	res := callTool(t, cs, "ask_user", map[string]any{})
	sc, _ := res.StructuredContent.(map[string]any)
	if res.IsError || sc["action"] != "accept" {
		t.Errorf("ask_user = %v %s", res.StructuredContent, text(t, res))
	}
	if got := text(t, callTool(t, cs, "ask_model", map[string]any{"prompt": "ping"})); got != "pong: ping" {
		t.Errorf("ask_model = %q", got)
	}
	if got := text(t, callTool(t, cs, "list_roots", map[string]any{})); !strings.Contains(got, "file:///work/project") {
		t.Errorf("list_roots = %q", got)
	}
	if got := text(t, callTool(t, cs, "add", map[string]any{"a": 1, "b": 2})); got != `{"sum":3}` {
		t.Errorf("add = %q", got)
	}
}

func TestHTTPHandlerBothEras(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		transport sdkmcp.Transport
		version   string
		want      string
	}{
		{"streamable legacy", &sdkmcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, legacyVersion, legacyVersion},
		{"streamable modern", &sdkmcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, "", "2026-07-28"},
		{"sse legacy", &sdkmcp.SSEClientTransport{Endpoint: srv.URL + "/sse"}, "", "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "http-test", Version: "0"}, newRecorder().clientOptions())
			cs, err := client.Connect(ctx, tc.transport, &sdkmcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cs.Close() }()
			if v := cs.InitializeResult().ProtocolVersion; v != tc.want {
				t.Errorf("negotiated %q, want %q", v, tc.want)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != len(demo.InputSchemas) {
				t.Errorf("%d tools", len(tools.Tools))
			}
			res := callTool(t, cs, "ask_user", map[string]any{})
			if sc, _ := res.StructuredContent.(map[string]any); res.IsError || sc["action"] != "accept" {
				t.Errorf("ask_user = %s", text(t, res))
			}
		})
	}
}

func TestServeReturnsNilAtEndOfInput(t *testing.T) {
	r, w := io.Pipe()
	_ = w.Close()
	done := make(chan error, 1)
	go func() {
		done <- demo.Serve(context.Background(), demo.NewServer(), &sdkmcp.IOTransport{Reader: r, Writer: nopWriteCloser{io.Discard}})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve at EOF = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return at EOF")
	}

	ctx, cancel := context.WithCancel(context.Background())
	r2, w2 := io.Pipe()
	defer func() { _ = w2.Close() }()
	go func() {
		done <- demo.Serve(ctx, demo.NewServer(), &sdkmcp.IOTransport{Reader: r2, Writer: nopWriteCloser{io.Discard}})
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after cancel = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return after cancel")
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
