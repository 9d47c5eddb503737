package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
)

// The MCP App servers the SDK's authors publish, run with --stdio from the
// prefix .ci/run installs them into (MCPSCOPE_THIRD_PARTY); with
// MCPSCOPE_BROWSER_TESTS set too, a missing one fails the test.

// frames keeps a client's frames.
type frames struct {
	mu  sync.Mutex
	all []*mcp.Frame
}

func (f *frames) on(e mcp.Event) {
	if fe, ok := e.(mcp.FrameEvent); ok {
		f.mu.Lock()
		f.all = append(f.all, fe.Frame)
		f.mu.Unlock()
	}
}

func (f *frames) find(match func(*mcp.Frame) bool) *mcp.Frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fr := range f.all {
		if match(fr) {
			return fr
		}
	}
	return nil
}

func startAppServer(t *testing.T, ctx context.Context, pkg string) (*mcp.Client, *frames) {
	t.Helper()
	prefix := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if prefix == "" {
		t.Skip("set MCPSCOPE_THIRD_PARTY (see .ci/run) to run the npm MCP App servers")
	}
	index := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("MCPSCOPE_THIRD_PARTY is set but %s is not installed: %v", pkg, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("MCPSCOPE_THIRD_PARTY is set but node is not on PATH")
	}
	fr := &frames{}
	caps, _ := json.Marshal(map[string]any{"extensions": map[string]json.RawMessage{apps.ExtensionID: apps.ClientCapability()}})
	c := mcp.NewClient(&mcp.StdioTransport{Command: node, Args: []string{index, "--stdio"}}, mcp.Options{OnEvent: fr.on, Capabilities: caps})
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return c, fr
}

func TestBrowserRealAppServers(t *testing.T) {
	for _, pkg := range []string{"server-basic-vanillajs", "server-basic-react"} {
		t.Run(pkg, func(t *testing.T) {
			b := launchChromium(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, fr := startAppServer(t, ctx, pkg)
			tools, _, err := c.ListAll(ctx, mcp.MethodToolsList)
			if err != nil {
				t.Fatal(err)
			}
			var tool json.RawMessage
			for _, entry := range tools {
				if apps.ParseTool(entry).HasView() {
					tool = entry
				}
			}
			if tool == nil {
				t.Fatalf("%s lists no tool with a view", pkg)
			}
			var name struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(tool, &name)
			resp, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": name.Name, "arguments": map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			// The time is the result's text (vanillajs has it in
			// structuredContent too, react only there).
			var out struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if json.Unmarshal(resp.Result, &out) != nil || len(out.Content) == 0 || len(out.Content[0].Text) < 10 {
				t.Fatalf("the tool's result has no time: %s", resp.Result)
			}
			when := out.Content[0].Text
			v, err := ReadView(ctx, c, tool, json.RawMessage(`{}`), resp.Result, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := startServer(t, Options{Forward: ClientForwarder(c)})
			view := s.Add(v)
			r, err := Render(ctx, b, view, 900, 700)
			if err != nil {
				// What the page did say tells a page that never loaded
				// from a view that never initialised.
				var seen []string
				for _, e := range view.Events() {
					seen = append(seen, fmt.Sprintf("%s %s", e.Kind, e.Method()))
				}
				t.Fatalf("%v; the page's rows: %v", err, seen)
			}
			defer func() { _ = r.Page.Close(ctx) }()
			if d := os.Getenv("APPHOST_DEBUG"); d != "" {
				_ = os.WriteFile(filepath.Join(d, pkg+".png"), r.PNG, 0o644)
			}
			if !r.Delivered {
				t.Fatalf("the view never got its result: %v", view.Events())
			}
			// The view initialised, then got tool-input before tool-result.
			var order []string
			for _, e := range view.Events() {
				if m := e.Method(); m == "ui/initialize" || m == "ui/notifications/tool-input" || m == "ui/notifications/tool-result" {
					order = append(order, m)
				}
			}
			if strings.Join(order, " ") != "ui/initialize ui/notifications/tool-input ui/notifications/tool-result" {
				t.Errorf("bridge order %q", order)
			}
			notBlank(t, r.PNG)
			frame := innermost(t, ctx, r.Page)
			evalUntil(t, ctx, r.Page, frame, `document.body.innerText`, when)
			if _, err := r.Page.Eval(ctx, frame, `Array.from(document.querySelectorAll("button")).find(b => b.textContent.includes("Get Server Time")).click()`); err != nil {
				t.Fatal(err)
			}
			viewCall := func(f *mcp.Frame) bool {
				return f.ByView && f.Dir == mcp.Outbound && f.Method == mcp.MethodToolsCall
			}
			viewAnswer := func(f *mcp.Frame) bool { return f.ByView && f.ReplyToMethod == mcp.MethodToolsCall }
			for fr.find(viewCall) == nil || fr.find(viewAnswer) == nil {
				select {
				case <-ctx.Done():
					for _, e := range view.Events() {
						t.Logf("%s from=%v %s", e.Kind, e.FromView, e.Text)
					}
					t.Fatal("the click made no tools/call marked as the view's")
				case <-time.After(20 * time.Millisecond):
				}
			}
			// Only bridge rows, but for the SDK's zod probing eval (caught,
			// and reported by the browser all the same).
			for _, e := range view.Events() {
				if e.Kind != KindBridge && !(e.Kind == KindCSP && strings.Contains(e.Text, "blocked eval")) {
					t.Errorf("%s row: %s", e.Kind, e.Text)
				}
			}
		})
	}
}
