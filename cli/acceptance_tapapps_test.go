package cli

// A tool's view previewed from a tap's capture: the real binary's tap
// sits between a scripted client and @modelcontextprotocol/server-basic-
// vanillajs; the client lists the tools, reads the ui:// template and
// calls the tool. The capture's viewer then offers P on the call's
// frame detail, says where the view is (--no-open), and a headless
// Chromium there shows the view initialised with the captured input and
// result; the view's own tools/call (its button) is answered with the
// read-only error, a row of the log.
//
//	MCPSCOPE_TMUX_TESTS=1 MCPSCOPE_BROWSER_TESTS=1 MCPSCOPE_THIRD_PARTY=.ci/npm \
//	  go test -count=1 -run '^TestAcceptance$/tapped' .

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/lib/chromium"
)

func flowTappedAppPreview(t *testing.T, a *accept) {
	if os.Getenv("MCPSCOPE_BROWSER_TESTS") == "" {
		t.Skip("set MCPSCOPE_BROWSER_TESTS=1 (see .ci/run) to point Chromium at the preview")
	}
	browser, err := chromium.Find("")
	if err != nil {
		t.Fatalf("MCPSCOPE_BROWSER_TESTS is set but: %v", err)
	}
	prefix := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if prefix == "" {
		t.Fatal("MCPSCOPE_BROWSER_TESTS is set but MCPSCOPE_THIRD_PARTY is not: the MCP App server comes from there (see .ci/run)")
	}
	index := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "server-basic-vanillajs", "dist", "index.js")
	if _, err := os.Stat(index); err != nil {
		t.Fatalf("MCPSCOPE_THIRD_PARTY is set but server-basic-vanillajs is not installed there (.ci/run installs it): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("MCPSCOPE_THIRD_PARTY is set but node is not on PATH")
	}

	// The tap records under HOME; the flows run side by side, so it gets
	// a home of its own, passed to it as a client passes it.
	base := t.TempDir()
	home, rt := filepath.Join(base, "home"), filepath.Join(base, "rt")
	for _, d := range []string{home, rt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	when := tappedCall(ctx, t, &mcp.StdioTransport{Command: a.bin,
		Args: []string{"tap", "--name", "apps", "--", node, index, "--stdio"},
		Env:  []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + rt}})
	captures, _ := filepath.Glob(filepath.Join(home, ".local", "state", "mcpscope", "taps", "*.jsonl"))
	if len(captures) != 1 {
		t.Fatalf("captures %q, want the tap's one", captures)
	}

	s := a.startWith(t, 120, 35, []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + rt}, "--no-open", "open", captures[0])
	s.see("result of tools/call get-time #4")
	s.keys("1")
	s.see("─ Log")
	s.keys("/")
	s.typ("tools/call")
	s.keys("Enter")
	s.see("result of tools/call get-time")
	s.keys("G", "Enter")
	s.see("Frame #")
	s.see("P preview view")
	s.keys("P")
	scr := s.see("the view of get-time is at http://127.0.0.1:")
	url := viewURLRe.FindString(strings.ReplaceAll(scr, "\n", ""))
	if url == "" {
		t.Fatalf("no URL on the screen:\n%s", scr)
	}
	s.keys("Escape")
	s.gone("Frame #")
	s.keys("/")
	s.keys("C-u")
	s.typ("kind:app")
	s.keys("Enter")
	s.see("kind:app")

	b, err := chromium.Launch(ctx, browser)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	page, err := b.Open(ctx, url, 900, 700)
	if err != nil {
		t.Fatal(err)
	}
	s.waitFor("the view initialised with the captured input and result", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "get-time view → host: ui/initialize") &&
			strings.Contains(scr, "get-time host → view: ui/notifications/tool-inp") &&
			strings.Contains(scr, "get-time host → view: ui/notifications/tool-res")
	})
	frame := viewFrame(ctx, t, page)
	evalUntilContains(ctx, t, page, frame, `document.body.innerText`, when)
	if _, err := page.Eval(ctx, frame, `Array.from(document.querySelectorAll("button")).find(b => b.textContent.includes("Get Server Time")).click()`); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the view's tools/call and its read-only error", 10*time.Second, func(scr string) bool {
		return strings.Contains(scr, "get-time view → host: tools/call") && strings.Contains(scr, "-32000")
	})
}

// tappedCall is the scripted client: through tr (the tap) it lists the
// tools, reads the view's template and calls the tool with the view; it
// returns the time the tool answered.
func tappedCall(ctx context.Context, t *testing.T, tr *mcp.StdioTransport) string {
	t.Helper()
	caps, _ := json.Marshal(map[string]any{"extensions": map[string]json.RawMessage{apps.ExtensionID: apps.ClientCapability()}})
	c := mcp.NewClient(tr, mcp.Options{Capabilities: caps})
	defer func() { _ = c.Close() }()
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	tools, _, err := c.ListAll(ctx, mcp.MethodToolsList)
	if err != nil {
		t.Fatal(err)
	}
	var name, uri string
	for _, entry := range tools {
		if v := apps.ParseTool(entry); v.HasView() {
			var n struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(entry, &n)
			name, uri = n.Name, v.URI()
		}
	}
	if name != "get-time" {
		t.Fatalf("the server lists no get-time with a view: %s", tools)
	}
	if _, err := c.Call(ctx, mcp.MethodResourcesRead, map[string]string{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(resp.Result, &out) != nil || len(out.Content) == 0 || len(out.Content[0].Text) < 10 {
		t.Fatalf("the tool's result has no time: %s", resp.Result)
	}
	return out.Content[0].Text
}

// viewFrame is the view's frame: the deepest, inside the host page and
// the sandbox.
func viewFrame(ctx context.Context, t *testing.T, p *chromium.Page) string {
	t.Helper()
	for ctx.Err() == nil {
		frames, err := p.Frames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			if f.Depth == 2 {
				return f.ID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the view's frame never appeared")
	return ""
}

// evalUntilContains evaluates expr in the frame until its value holds want.
func evalUntilContains(ctx context.Context, t *testing.T, p *chromium.Page, frame, expr, want string) {
	t.Helper()
	var last string
	for ctx.Err() == nil {
		if v, err := p.Eval(ctx, frame, expr); err == nil {
			if last = string(v); strings.Contains(last, want) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s = %s, want %q in it", expr, last, want)
}
