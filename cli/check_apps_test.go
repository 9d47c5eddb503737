package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// viewServer is a scripted server with one tool whose view is html, of the
// given MIME type, named by key (ui.resourceUri or openai/outputTemplate).
// Its tool answers every call with structuredContent {"secret": ...}.
func viewServer(html, mime string, skybridge bool, resourceMeta string) mcptest.Script {
	toolMeta := `{"ui":{"resourceUri":"ui://t/view.html"}}`
	if skybridge {
		toolMeta = `{"openai/outputTemplate":"ui://t/view.html","openai/widgetAccessible":true}`
	}
	text, _ := json.Marshal(html)
	meta := ""
	if resourceMeta != "" {
		meta = `,"_meta":` + resourceMeta
	}
	return mcptest.Script{Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`), On: map[string][][]string{
		"tools/list":     {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[{"name":"show","inputSchema":{"type":"object"},"_meta":` + toolMeta + `}]}}`}},
		"tools/call":     {{`{"jsonrpc":"2.0","id":{{id}},"result":{"content":[{"type":"text","text":"{\"secret\":\"s3cr3t-42\"}"}],"structuredContent":{"secret":"s3cr3t-42"}}}`}},
		"resources/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[{"uri":"ui://t/view.html","name":"view","mimeType":"` + mime + `"}]}}`}},
		"resources/read": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"contents":[{"uri":"ui://t/view.html","mimeType":"` + mime + `","text":` + string(text) + meta + `}]}}`}},
	}}
}

func checkJSON(t *testing.T, args ...string) (*report.Report, string) {
	t.Helper()
	out, stderr, err, code := runCLISplit(append([]string{"check", "--format", "json"}, args...)...)
	var rep report.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("exit %d, %v, not JSON: %v\n%s\n%s", code, err, jerr, out, stderr)
	}
	return &rep, stderr
}

func appFindings(rep *report.Report) []report.Diagnostic {
	var out []report.Diagnostic
	for _, d := range rep.Diagnostics {
		if strings.HasPrefix(d.Rule, "apps/view-") {
			out = append(out, d)
		}
	}
	return out
}

// A server without views starts no browser: not even the missing one.
func TestCheckAppsOnAServerWithoutViewsStartsNoBrowser(t *testing.T) {
	rep, stderr := checkJSON(t, "--apps", "--browser", "/nonexistent/chromium")
	if rep.Apps == nil || rep.Apps.Skipped != "no tool names a view" || rep.Apps.Browser != "" || stderr != "" {
		t.Fatalf("apps %+v, stderr %q", rep.Apps, stderr)
	}
	if f := appFindings(rep); len(f) != 0 {
		t.Errorf("findings %v", f)
	}
}

// Without a browser check says so once and runs the static rules.
func TestCheckAppsWithoutABrowserSaysSoOnce(t *testing.T) {
	sc := viewServer("<!doctype html><p>x</p>", "text/html;profile=mcp-app", false, "")
	rep, stderr := checkJSON(t, append([]string{"--apps", "--browser", "/nonexistent/chromium"}, scriptArgs(sc)...)...)
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "/nonexistent/chromium") || !strings.Contains(stderr, "static rules") {
		t.Errorf("stderr %q, want one line naming the browser", stderr)
	}
	if rep.Apps == nil || rep.Apps.Skipped == "" || len(rep.Apps.Views) != 0 || !rep.Connected {
		t.Errorf("apps %+v", rep.Apps)
	}
	if _, _, err, code := runCLISplit("check", "--screenshots", t.TempDir()); code != exitUsage {
		t.Errorf("--screenshots without --apps: exit %d, %v", code, err)
	}
}

func needChromium(t *testing.T) {
	t.Helper()
	if os.Getenv("MCPSCOPE_BROWSER_TESTS") == "" {
		t.Skip("set MCPSCOPE_BROWSER_TESTS=1 (see .ci/run) to render views in headless Chromium")
	}
}

// A skybridge widget reads window.openai.toolOutput and calls a tool
// with it through window.openai.callTool: the call is a frame marked as
// the view's, carrying the output it read.
const skybridgeWidget = `<!doctype html><html><body><p id="out">waiting</p><script>
function show() {
  var o = window.openai && window.openai.toolOutput;
  if (!o || window.called) return;
  window.called = true;
  document.getElementById("out").textContent = o.secret;
  window.openai.callTool("show", {echo: o.secret}).then(function (r) { document.getElementById("out").textContent += " called"; });
}
window.addEventListener("openai:set_globals", show);
show();
</script></body></html>`

func TestCheckAppsSkybridgeWidget(t *testing.T) {
	needChromium(t)
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	shots := t.TempDir()
	sc := viewServer(skybridgeWidget, "text/html+skybridge", true, "")
	rep, stderr := checkJSON(t, append([]string{"--apps", "--screenshots", shots, "--record", rec}, scriptArgs(sc)...)...)
	if rep.Apps == nil || len(rep.Apps.Views) != 1 || !rep.Apps.Views[0].Delivered || rep.Apps.Views[0].Dialect != "skybridge" {
		t.Fatalf("apps %+v, stderr %q", rep.Apps, stderr)
	}
	if f := appFindings(rep); len(f) != 0 {
		t.Errorf("findings %v", f)
	}
	if _, err := os.Stat(filepath.Join(shots, "show.png")); err != nil {
		t.Errorf("no screenshot: %v", err)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	entries, err := record.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var viewCall, viewAnswer bool
	var appRows []string
	for _, e := range entries {
		if e.Type == "transport" && e.TransportKind == "app" {
			appRows = append(appRows, e.Summary)
		}
		if e.ByView && e.Method == "tools/call" && e.Raw != nil && strings.Contains(*e.Raw, `"echo":"s3cr3t-42"`) {
			viewCall = true
		}
		if e.ByView && e.Dir == "in" {
			viewAnswer = true
		}
	}
	rows := strings.Join(appRows, "\n")
	for _, want := range []string{"ui/initialize #\"openai-1\" (via window.openai)", "host → view: ui/notifications/tool-result", "tools/call #\"openai-2\" (via window.openai)"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the record's app rows lack %q:\n%s", want, rows)
		}
	}
	if !viewCall || !viewAnswer {
		t.Errorf("the widget's callTool with its toolOutput: request %v, answer %v, in the record", viewCall, viewAnswer)
	}
}

// A view loading a script from an origin its CSP does not allow is a
// finding naming the URL and the directive; allowed, it is none.
func TestCheckAppsCSPViolation(t *testing.T) {
	needChromium(t)
	scripts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`window.loaded = true;`))
	}))
	defer scripts.Close()
	url := scripts.URL + "/lib.js"
	view := `<!doctype html><html><body><script>
parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {appInfo: {name: "v", version: "1"}, appCapabilities: {}, protocolVersion: "2026-01-26"}}, "*");
addEventListener("message", function (e) { if (e.data.id === 1) parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}, "*"); });
</script><script src="` + url + `"></script></body></html>`
	for _, allowed := range []bool{false, true} {
		meta := ""
		if allowed {
			meta = `{"ui":{"csp":{"resourceDomains":["` + scripts.URL + `"]}}}`
		}
		rep, stderr := checkJSON(t, append([]string{"--apps"}, scriptArgs(viewServer(view, "text/html;profile=mcp-app", false, meta))...)...)
		if rep.Apps == nil || len(rep.Apps.Views) != 1 || !rep.Apps.Views[0].Delivered {
			t.Fatalf("allowed %v: apps %+v, stderr %q", allowed, rep.Apps, stderr)
		}
		var csp []report.Diagnostic
		for _, d := range appFindings(rep) {
			if d.Rule == report.RuleViewCSP {
				csp = append(csp, d)
			}
		}
		switch {
		case allowed && len(csp) != 0:
			t.Errorf("an allowed origin is a finding: %v", csp)
		case !allowed && (len(csp) != 1 || !strings.Contains(csp[0].Message, url) || !strings.Contains(csp[0].Message, "script-src")):
			t.Errorf("findings %v, want one naming %s and script-src", appFindings(rep), url)
		}
	}
}
