package cli

// The preview in the TUI: p on a tool's result says where the view is
// (--no-open), and a headless Chromium pointed at that URL puts the
// bridge's rows in the log within a second of loading the page.
//
//	MCPSCOPE_TMUX_TESTS=1 MCPSCOPE_BROWSER_TESTS=1 go test -count=1 -run '^TestAcceptance$/preview' .

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/chromium"
)

// handView initialises as the spec says, with no SDK, and shows the
// result's text.
const handView = `<!doctype html><html><body><p id="t">waiting</p><script>
addEventListener("message", function (e) { var m = e.data;
  if (m.id === 1 && !m.method) parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}, "*");
  if (m.method === "ui/notifications/tool-result") document.getElementById("t").textContent = m.params.content[0].text; });
parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {appInfo: {name: "hand", version: "1"}, appCapabilities: {}, protocolVersion: "2026-01-26"}}, "*");
</script></body></html>`

var viewURLRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+/view/\d+`)

func flowAppPreview(t *testing.T, a *accept) {
	if os.Getenv("MCPSCOPE_BROWSER_TESTS") == "" {
		t.Skip("set MCPSCOPE_BROWSER_TESTS=1 (see .ci/run) to point Chromium at the preview")
	}
	path, err := chromium.Find("")
	if err != nil {
		t.Fatalf("MCPSCOPE_BROWSER_TESTS is set but: %v", err)
	}
	sc := viewServer(handView, "text/html;profile=mcp-app", false, "")
	s := a.start(t, 120, 35, append([]string{"--no-open"}, scriptArgs(sc)...)...)
	s.ready()
	s.openTool("show")
	s.keys("C-s")
	s.see("p preview view")
	s.keys("p")
	scr := s.see("the view of show is at http://127.0.0.1:")
	url := viewURLRe.FindString(strings.ReplaceAll(scr, "\n", ""))
	if url == "" {
		t.Fatalf("no URL on the screen:\n%s", scr)
	}
	s.keys("Escape")
	s.gone("Result · show")
	s.keys("1")
	s.see("─ Log")
	s.keys("/")
	s.typ("kind:app")
	s.keys("Enter")
	s.see("kind:app")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := chromium.Launch(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if _, err := b.Open(ctx, url, 900, 700); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the bridge's rows", time.Second, func(scr string) bool {
		return strings.Contains(scr, "show view → host: ui/initialize #1") && strings.Contains(scr, "show host → view: ui/notifications/tool-res")
	})
}
