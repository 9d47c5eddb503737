package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// The demo server (go-sdk) is an independent peer: these tests run it as a
// real subprocess over stdio, in both eras. TestMain runs it when the test
// binary is started as "<binary> demo-server".
func demoTransport() *mcp.StdioTransport {
	return &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}, Grace: 500 * time.Millisecond}
}

// answerer plays the user and the model for the demo's ask_* tools and
// records what it was asked.
type answerer struct {
	mu     sync.Mutex
	asked  []string
	inputs []string
}

func (a *answerer) HandleServerRequest(_ context.Context, req *mcp.ServerRequest) (json.RawMessage, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Method)
	a.inputs = append(a.inputs, req.InputKey)
	a.mu.Unlock()
	switch req.Method {
	case "elicitation/create":
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada","colour":"green","subscribe":false}}`), nil
	case "sampling/createMessage":
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"forty-two"},"model":"mcpscope-test","stopReason":"endTurn"}`), nil
	case "roots/list":
		return json.RawMessage(`{"roots":[{"uri":"file:///work","name":"work"}]}`), nil
	}
	return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "unexpected " + req.Method}
}

func TestDemoInterop(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern, mcp.EraAuto} {
		t.Run(era.String(), func(t *testing.T) {
			ans := &answerer{}
			c, col := connect(t, demoTransport(), mcp.Options{Era: era, Discover: true, Handler: ans})
			hs := c.Handshake()
			wantEra := era
			if era == mcp.EraAuto {
				wantEra = mcp.EraModern // the demo answers server/discover
			}
			if hs.Era != wantEra || hs.ServerInfo.Name != "mcpscope-demo" {
				t.Fatalf("handshake era %v server %q", hs.Era, hs.ServerInfo.Name)
			}
			ctx := context.Background()

			resp, err := c.Call(ctx, "tools/call", map[string]any{"name": "add", "arguments": map[string]any{"a": 2, "b": 40}})
			if err != nil || !strings.Contains(string(resp.Result), `"sum":42`) {
				t.Errorf("add: %v %s", err, resultOf(resp))
			}

			var steps int
			var mu sync.Mutex
			_, err = c.Call(ctx, "tools/call", map[string]any{"name": "slow_count", "arguments": map[string]any{"steps": 3, "delay_ms": 10}},
				mcp.WithProgress(func(mcp.Progress) { mu.Lock(); steps++; mu.Unlock() }))
			if err != nil {
				t.Errorf("slow_count: %v", err)
			}
			mu.Lock()
			if steps != 3 {
				t.Errorf("progress notifications = %d, want 3", steps)
			}
			mu.Unlock()

			for _, tc := range []struct{ tool, want string }{
				{"ask_user", "Ada"},
				{"ask_model", "forty-two"},
				{"list_roots", "file:///work"},
			} {
				resp, err := c.Call(ctx, "tools/call", map[string]any{"name": tc.tool, "arguments": map[string]any{"prompt": "hi"}})
				if err != nil || !strings.Contains(string(resp.Result), tc.want) {
					t.Errorf("%s: %v %s", tc.tool, err, resultOf(resp))
				}
			}
			ans.mu.Lock()
			if strings.Join(ans.asked, ",") != "elicitation/create,sampling/createMessage,roots/list" {
				t.Errorf("handler asked %v", ans.asked)
			}
			modernInputs := ans.inputs[0] != ""
			ans.mu.Unlock()
			if modernInputs != (wantEra == mcp.EraModern) {
				t.Errorf("era %v: input requests arrived as MRTR = %v", wantEra, modernInputs)
			}
			_ = c.Close()
			lists := map[string]int{}
			for _, ev := range col.wait(t) {
				if le, ok := ev.(mcp.ListEvent); ok {
					lists[le.Method] = len(le.Items)
				}
			}
			if lists["tools/list"] < 10 || lists["prompts/list"] != 2 || lists["resources/templates/list"] != 1 {
				t.Errorf("discovered lists = %v", lists)
			}
		})
	}
}

func resultOf(r *mcp.Response) string {
	if r == nil {
		return "<no response>"
	}
	return string(r.Result)
}
