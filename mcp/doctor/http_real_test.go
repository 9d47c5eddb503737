package doctor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
)

// sseServer is a small legacy (2025-11-25) Streamable HTTP server whose
// request streams are SSE. broken makes it mint a session id with a space,
// skip the priming event and reuse event ids.
func sseServer(t *testing.T, broken bool) *httptest.Server {
	var n atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		case http.MethodDelete:
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		sid := "session-1"
		if broken {
			sid = "abc def"
		}
		if msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if msg.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", sid)
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`, msg.ID)
			return
		}
		result := `{}`
		if msg.Method == "tools/list" {
			result = `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
		}
		w.Header().Set("Content-Type", "text/event-stream")
		k := n.Add(1)
		if broken {
			_, _ = fmt.Fprintf(w, "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", msg.ID, result)
			return
		}
		_, _ = fmt.Fprintf(w, "id: p%d\nretry: 1000\ndata: \n\nid: m%d\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", k, k, msg.ID, result)
	}))
}

// TestHTTPRulesOnRealExchange runs real Streamable HTTP traffic through
// mcp.HTTPTransport, so the rules read the field names and summaries the
// transport really emits.
func TestHTTPRulesOnRealExchange(t *testing.T) {
	want := []string{"http/session-id-characters", "http/sse-no-priming", "http/duplicate-event-id"}
	for _, broken := range []bool{true, false} {
		t.Run(fmt.Sprintf("broken=%v", broken), func(t *testing.T) {
			srv := sseServer(t, broken)
			defer srv.Close()
			s := run(t, &mcp.HTTPTransport{URL: srv.URL + "/mcp", NoSSEFallback: true}, mcp.Options{ProtocolVersion: mcp.Version20251125}, doctor.Options{},
				func(ctx context.Context, c *mcp.Client) {
					_, _, _ = c.ListAll(ctx, "tools/list")
					_, _ = c.Call(ctx, "ping", nil)
				})
			if s.connectErr != nil {
				t.Fatal(s.connectErr)
			}
			for _, rule := range want {
				if s.fired(rule) != broken {
					t.Errorf("%s fired=%v, want %v; diagnostics:\n  %s", rule, s.fired(rule), broken, strings.Join(s.rules(), "\n  "))
				}
			}
			if !broken && len(s.diags) > 0 {
				t.Errorf("diagnostics on a correct server:\n  %s", strings.Join(s.rules(), "\n  "))
			}
		})
	}
}

// TestNewRulesQuietOnCorrectTraffic: the correct counterpart of each new
// rule's mistake produces nothing.
func TestNewRulesQuietOnCorrectTraffic(t *testing.T) {
	now := time.Now()
	l := doctor.New(doctor.Options{})
	var diags []*mcp.Diagnostic
	for _, ev := range []mcp.Event{
		legacy1125(),
		outFrame(mcp.KindRequest, "ping"), inResponse(2, 1, "ping", 20*time.Millisecond, now),
		sseEv("POST /mcp tools/call (id 3)", "p3", "SSE priming event, id p3, retry 1s on POST /mcp tools/call (id 3)"),
		sseEv("POST /mcp tools/call (id 3)", "m3", "SSE id m3 on POST /mcp tools/call (id 3)"),
		mcp.TransportEvent{Kind: "reconnect", Fields: []mcp.Field{{Key: "stream", Value: "POST /mcp tools/call (id 3)"}, {Key: "retry from server", Value: "true"}}},
		oauthEv("GET /.well-known/oauth-protected-resource → 200 (protected resource metadata)", "document", `{"resource":"https://x/mcp","authorization_servers":["https://as"]}`),
		oauthEv("GET /.well-known/oauth-authorization-server → 200 (authorization server metadata)", "document", `{"issuer":"https://as","code_challenge_methods_supported":["S256"]}`),
		oauthEv("403 insufficient_scope: stepping up", "status", "403 Forbidden", "scope", "files:write"),
		mcp.ExitEvent{Exit: &mcp.ExitError{Code: 0, Expected: true}},
	} {
		diags = append(diags, l.Observe(ev)...)
	}
	for _, d := range diags {
		t.Errorf("unexpected %s: %s", d.Rule, d.Message)
	}

	// A late answer within the race window, valid templates, -32002,
	// valid x-mcp-header and a stable order: real traffic.
	cases := []ruleCase{
		{script: toolCall(tool("a", ""), "@sleep:400ms", res(`{"content":[]}`)), act: func(ctx context.Context, c *mcp.Client) {
			_, _, _ = c.ListAll(ctx, "tools/list")
			_, _ = c.Call(ctx, "tools/call", map[string]any{"name": "a", "arguments": map[string]any{}}, mcp.WithTimeout(200*time.Millisecond))
			_, _ = c.Call(ctx, "ping", nil, mcp.WithTimeout(5*time.Second))
		}},
		{script: mcptest.Script{Capabilities: json.RawMessage(`{"resources":{}}`), On: map[string]lines{
			"resources/templates/list": {{res(`{"resourceTemplates":[{"name":"a","uriTemplate":"file:///{path}"},{"name":"b","uriTemplate":"users/{id}{?fields*,x:3}{#frag}"},{"name":"c","uriTemplate":"test://static/resource/{+rest}/%20"}]}`)}},
			"resources/read":           {{rpcErr(-32002, "Resource not found", `{"uri":"x://y"}`)}}}},
			act: func(ctx context.Context, c *mcp.Client) {
				_, _, _ = c.ListAll(ctx, "resources/templates/list")
				readResource("x://y")(ctx, c)
			}},
		{opts: mcp.Options{Era: mcp.EraModern}, script: mcptest.Script{On: map[string]lines{"server/discover": {{discover(toolsCaps)}},
			"tools/list": {{modernList("tools", `{"name":"a","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}},`+tool("b", ""))}}}},
			act: listTwice("tools/list")},
	}
	for i, tc := range cases {
		s := run(t, scripted(tc.script), tc.opts, tc.lint, tc.act)
		for _, d := range s.diags {
			if i == 0 && d.Rule == "tools/call-timeout" {
				continue // the call did time out: that one is right
			}
			t.Errorf("case %d: unexpected %s: %s", i, d.Rule, d.Message)
		}
	}
}
