package host

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/lib/chromium"
)

// These tests open views in a real headless Chromium. .ci/run installs it
// and sets MCPSCOPE_BROWSER_TESTS=1; with the variable set and no Chromium
// they fail rather than skip.

func launchChromium(t *testing.T) *chromium.Browser {
	t.Helper()
	if os.Getenv("MCPSCOPE_BROWSER_TESTS") == "" {
		t.Skip("set MCPSCOPE_BROWSER_TESTS=1 (see .ci/run) to render views in headless Chromium")
	}
	path, err := chromium.Find("")
	if err != nil {
		t.Fatalf("MCPSCOPE_BROWSER_TESTS is set but: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := chromium.Launch(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// handView is a view written by hand against the spec, with no SDK: it
// initialises, shows the result's text, calls a tool on a click, logs a
// console error and loads a script from SCRIPT.
const handView = `<!doctype html><html><body><p id="t">waiting</p><button id="b">again</button><script>
var n = 0, pend = {};
function req(method, params) { var i = ++n; parent.postMessage({jsonrpc: "2.0", id: i, method: method, params: params}, "*");
  return new Promise(function (r) { pend[i] = r; }); }
addEventListener("message", function (e) { var m = e.data;
  if (m.id && pend[m.id] && !m.method) { pend[m.id](m); delete pend[m.id]; return; }
  if (m.method === "ui/notifications/tool-result") document.getElementById("t").textContent = m.params.content[0].text;
  if (m.method === "ui/resource-teardown") parent.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*"); });
req("ui/initialize", {appInfo: {name: "hand", version: "1"}, appCapabilities: {}, protocolVersion: "2026-01-26"}).then(function () {
  parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}, "*"); });
document.getElementById("b").onclick = function () { req("tools/call", {name: "get-time", arguments: {}}).then(function (m) {
  document.getElementById("t").textContent = m.result.content[0].text; }); };
console.error("hello from the view");
</script><script src="SCRIPT"></script></body></html>`

// innermost is the deepest frame of the page: the view.
func innermost(t *testing.T, ctx context.Context, p *chromium.Page) string {
	t.Helper()
	frames, err := p.Frames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deepest := frames[0]
	for _, f := range frames {
		if f.Depth > deepest.Depth {
			deepest = f
		}
	}
	if deepest.Depth != 2 {
		t.Fatalf("frames %+v: want the host page, the sandbox and the view", frames)
	}
	return deepest.ID
}

// evalUntil evaluates expr in the frame until it returns want.
func evalUntil(t *testing.T, ctx context.Context, p *chromium.Page, frame, expr, want string) {
	t.Helper()
	var last string
	for ctx.Err() == nil {
		v, err := p.Eval(ctx, frame, expr)
		if err == nil {
			last = string(v)
			if strings.Contains(last, want) {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("%s = %s, want %q in it", expr, last, want)
}

func notBlank(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	colors := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, a := img.At(x, y).RGBA()
			colors[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colors) < 3 {
		t.Errorf("the screenshot is blank (%d colours)", len(colors))
	}
}

func TestBrowserHandWrittenViewCSPAndConsole(t *testing.T) {
	b := launchChromium(t)
	scripts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`document.body.dataset.loaded = "yes";`))
	}))
	defer scripts.Close()
	script := scripts.URL + "/lib.js"
	for _, allowed := range []bool{false, true} {
		t.Run(map[bool]string{false: "blocked", true: "allowed"}[allowed], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			var mu sync.Mutex
			calls := 0
			s := startServer(t, Options{Forward: func(context.Context, *View, string, json.RawMessage) (json.RawMessage, *mcp.RPCError, error) {
				mu.Lock()
				calls++
				mu.Unlock()
				return json.RawMessage(`{"content":[{"type":"text","text":"13:00"}]}`), nil, nil
			}})
			meta := ""
			if allowed {
				meta = `,"_meta":{"ui":{"csp":{"resourceDomains":["` + scripts.URL + `"]}}}`
			}
			html, _ := json.Marshal(strings.Replace(handView, "SCRIPT", script, 1))
			read := `{"contents":[{"uri":"ui://get-time/app.html","mimeType":"text/html;profile=mcp-app","text":` + string(html) + meta + `}]}`
			v, err := NewView(json.RawMessage(testTool), nil, json.RawMessage(`{"content":[{"type":"text","text":"12:00"}]}`), nil, json.RawMessage(read))
			if err != nil {
				t.Fatal(err)
			}
			view := s.Add(v)
			r, err := Render(ctx, b, view, 900, 700)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = r.Page.Close(ctx) }()
			if !r.Delivered {
				t.Fatalf("the view never got its result: %v", view.Events())
			}
			notBlank(t, r.PNG)
			if d := os.Getenv("APPHOST_DEBUG"); d != "" {
				_ = os.WriteFile(d+"/"+t.Name()[len(t.Name())-7:]+".png", r.PNG, 0o644)
				for _, e := range view.Events() {
					t.Logf("%s from=%v via=%s %s", e.Kind, e.FromView, e.Via, e.Text)
				}
			}
			frame := innermost(t, ctx, r.Page)
			evalUntil(t, ctx, r.Page, frame, `document.getElementById("t").textContent`, "12:00")
			if _, err := r.Page.Eval(ctx, frame, `document.getElementById("b").click()`); err != nil {
				t.Fatal(err)
			}
			evalUntil(t, ctx, r.Page, frame, `document.getElementById("t").textContent`, "13:00")
			var csp, console []Event
			for _, e := range view.Events() {
				switch e.Kind {
				case KindCSP:
					csp = append(csp, e)
				case KindConsole:
					console = append(console, e)
				}
			}
			if len(console) == 0 || !strings.Contains(console[0].Text, "hello from the view") {
				t.Errorf("console rows %v", console)
			}
			var cspFindings []string
			for _, d := range Findings(view) {
				if d.Rule == report.RuleViewCSP {
					cspFindings = append(cspFindings, d.Message)
				}
			}
			if allowed != (len(cspFindings) == 0) || !allowed && (!strings.Contains(cspFindings[0], script) || !strings.Contains(cspFindings[0], "script-src")) {
				t.Errorf("CSP findings %q (origin allowed: %v)", cspFindings, allowed)
			}
			if allowed {
				evalUntil(t, ctx, r.Page, frame, `document.body.dataset.loaded || ""`, "yes")
				if len(csp) != 0 {
					t.Errorf("an allowed origin made CSP rows: %v", csp)
				}
				return
			}
			if len(csp) != 1 || !strings.Contains(csp[0].Text, script) || !strings.Contains(csp[0].Text, "script-src") {
				t.Errorf("CSP rows %v, want one naming %s and script-src", csp, script)
			}
		})
	}
}
