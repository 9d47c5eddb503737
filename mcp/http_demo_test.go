package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/demo"
)

// The demo server's HTTP handler (go-sdk) is an independent peer over every
// HTTP shape: Streamable HTTP in both eras at /mcp, legacy HTTP+SSE at /sse.
func TestDemoOverHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	cases := []struct {
		name      string
		transport mcp.Transport
		era       mcp.Era
		wantEra   mcp.Era
		fellBack  bool
	}{
		{"streamable legacy", &mcp.HTTPTransport{URL: srv.URL + "/mcp"}, mcp.EraLegacy, mcp.EraLegacy, false},
		{"streamable modern", &mcp.HTTPTransport{URL: srv.URL + "/mcp"}, mcp.EraModern, mcp.EraModern, false},
		{"streamable auto", &mcp.HTTPTransport{URL: srv.URL + "/mcp"}, mcp.EraAuto, mcp.EraModern, false},
		{"legacy sse", &mcp.SSETransport{URL: srv.URL + "/sse"}, mcp.EraLegacy, mcp.EraLegacy, false},
		{"streamable falls back to sse", &mcp.HTTPTransport{URL: srv.URL + "/sse"}, mcp.EraLegacy, mcp.EraLegacy, true},
		{"auto probe then fallback to sse", &mcp.HTTPTransport{URL: srv.URL + "/sse"}, mcp.EraAuto, mcp.EraLegacy, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ans := &answerer{}
			c, col := connect(t, tc.transport, mcp.Options{Era: tc.era, Discover: true, Handler: ans, Timeout: 10 * time.Second})
			if hs := c.Handshake(); hs.Era != tc.wantEra || hs.ServerInfo.Name != "mcpscope-demo" {
				t.Fatalf("handshake era %v server %q", hs.Era, hs.ServerInfo.Name)
			}
			ctx := context.Background()
			resp, err := c.Call(ctx, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 40}})
			if err != nil || !strings.Contains(string(resp.Result), `"sum":42`) {
				t.Errorf("add: %v %s", err, resultOf(resp))
			}
			resp, err = c.Call(ctx, "tools/call", map[string]any{"name": "ask_user", "arguments": map[string]any{"prompt": "hi"}})
			if err != nil || !strings.Contains(string(resp.Result), "Ada") {
				t.Errorf("ask_user: %v %s", err, resultOf(resp))
			}
			ans.mu.Lock()
			if strings.Join(ans.asked, ",") != "elicitation/create" {
				t.Errorf("handler asked %v", ans.asked)
			}
			if mrtr := ans.inputs[0] != ""; mrtr != (tc.wantEra == mcp.EraModern) {
				t.Errorf("era %v: input request arrived as MRTR = %v", tc.wantEra, mrtr)
			}
			ans.mu.Unlock()
			_ = c.Close()
			evs := col.wait(t)
			tools, fellBack, httpEvents := -1, false, 0
			for _, ev := range evs {
				switch ev := ev.(type) {
				case mcp.ListEvent:
					if ev.Method == "tools/list" {
						tools = len(ev.Items)
					}
				case mcp.TransportEvent:
					httpEvents++
					if strings.Contains(ev.Summary, "falling back to the 2024-11-05 HTTP+SSE") {
						fellBack = true
					}
				}
			}
			if tools < 10 {
				t.Errorf("tools/list found %d tools", tools)
			}
			if fellBack != tc.fellBack {
				t.Errorf("fell back to HTTP+SSE = %v, want %v", fellBack, tc.fellBack)
			}
			if httpEvents == 0 {
				t.Error("no transport events in the timeline")
			}
		})
	}
}

// Each inbound HTTP frame names the stream it came on, so the timeline and
// the protocol doctor can tell a POST's own answer from one on the GET stream.
func TestHTTPFramesNameTheirStream(t *testing.T) {
	srv := httptest.NewServer(demo.HTTPHandler())
	defer srv.Close()
	c, col := connect(t, &mcp.HTTPTransport{URL: srv.URL + "/mcp"}, mcp.Options{})
	if _, err := c.Call(context.Background(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	var answer *mcp.Frame
	for _, f := range frames(col.wait(t)) {
		if f.Dir == mcp.Inbound && f.Stream == "" {
			t.Errorf("inbound frame #%d (%s) names no stream", f.Seq, f.Label())
		}
		if f.ReplyToMethod == "tools/list" {
			answer = f
		}
	}
	if answer == nil {
		t.Fatal("no answer to tools/list")
	}
	if !strings.HasPrefix(answer.Stream, "POST /mcp tools/list") {
		t.Errorf("the tools/list answer came on %q, want its POST's stream", answer.Stream)
	}
}
