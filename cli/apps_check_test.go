package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

// appsModelTool is a tool with a view the model sees; appsViewTool one for
// views alone.
const (
	appsModelTool = `{"name":"get-time","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://get-time/app.html"},"ui/resourceUri":"ui://get-time/app.html"}}`
	appsViewTool  = `{"name":"refresh","description":"called by the view only","inputSchema":{"type":"object","properties":{"n":{"type":"number"}}},"_meta":{"ui":{"visibility":["app"]}}}`
)

// check's token count leaves out a tool for views alone and names it.
func TestCheckDoesNotCountToolsForViewsAlone(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{}}`), On: map[string][][]string{
		"tools/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[` + appsModelTool + `,` + appsViewTool + `]}}`}},
	}}
	out, _, _, code := runCLISplit(append([]string{"check", "--relist-delay", "10ms", "--format", "json"}, scriptArgs(sc)...)...)
	if code == exitUsage {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := tokens.List([]json.RawMessage{json.RawMessage(appsModelTool)})
	if rep.Tokens == nil || rep.Tokens.List != want.Total || len(rep.Tokens.Tools) != 1 || rep.Tokens.Tools[0].Name != "get-time" {
		t.Fatalf("tokens = %+v, want only get-time's %d", rep.Tokens, want.Total)
	}
	if !reflect.DeepEqual(rep.Tokens.AppOnly, []string{"refresh"}) {
		t.Errorf("appOnly = %q, want refresh", rep.Tokens.AppOnly)
	}
	text, _, _ := runCLI(t, append([]string{"check", "--relist-delay", "10ms"}, scriptArgs(sc)...)...)
	if !strings.Contains(text, `not counted, for app views alone (visibility without "model"): refresh`) {
		t.Errorf("the text report does not say refresh was not counted:\n%s", text)
	}
}

// check reads each view its tools name, once, and the apps rules judge
// it: a view the server cannot give is an error, and the read is in the
// report.
func TestCheckReadsTheViews(t *testing.T) {
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`), On: map[string][][]string{
		"tools/list":     {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[` + appsModelTool + `,` + appsViewTool + `]}}`}},
		"resources/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[]}}`}},
		"resources/read": {{`{"jsonrpc":"2.0","id":{{id}},"error":{"code":-32002,"message":"Resource not found"}}`}},
	}}
	out, _, _, code := runCLISplit(append([]string{"check", "--relist-delay", "10ms", "--format", "json"}, scriptArgs(sc)...)...)
	if code != exitServerError {
		t.Fatalf("exit %d, want %d\n%s", code, exitServerError, out)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Views) != 1 || rep.Views[0].URI != "ui://get-time/app.html" || !reflect.DeepEqual(rep.Views[0].Tools, []string{"get-time"}) || !strings.Contains(rep.Views[0].Error, "Resource not found") {
		t.Errorf("views = %+v, want one failed read of get-time's view", rep.Views)
	}
	found := false
	for _, d := range rep.Diagnostics {
		if d.Rule == "apps/template-unresolved" && strings.Contains(d.Message, "ui://get-time/app.html") {
			found = true
		}
	}
	if !found {
		t.Errorf("no apps/template-unresolved finding:\n%s", out)
	}
}

// The real MCP Apps servers (server-basic-vanillajs and -react 2.0.3,
// which .ci/run installs into MCPSCOPE_THIRD_PARTY): check reads their view
// and finds nothing, and offers them the extension.
func TestCheckOnTheRealMCPAppServers(t *testing.T) {
	dir := os.Getenv("MCPSCOPE_THIRD_PARTY")
	if dir == "" {
		t.Skip("set MCPSCOPE_THIRD_PARTY to the npm prefix .ci/run installs the third-party servers into")
	}
	for _, pkg := range []string{"server-basic-vanillajs", "server-basic-react"} {
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
			if _, err := os.Stat(entry); err != nil {
				t.Fatalf("MCPSCOPE_THIRD_PARTY is set but %s is not installed there (.ci/run installs it): %v", pkg, err)
			}
			rec := filepath.Join(t.TempDir(), "s.jsonl")
			out, _, _, code := runCLISplit("check", "--format", "json", "--record", rec, "--", "node", entry, "--stdio")
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, out)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(rep.Diagnostics) != 0 {
				t.Errorf("findings: %+v", rep.Diagnostics)
			}
			if len(rep.Views) != 1 || rep.Views[0].URI != "ui://get-time/mcp-app.html" || rep.Views[0].Error != "" || rep.Views[0].Bytes < 100<<10 {
				t.Errorf("views = %+v, want get-time's view read whole", rep.Views)
			}
			if offered, without := offeredAppsCapability(t, rec); offered == 0 || without > 0 {
				t.Errorf("initialize offered MCP Apps %d times, not %d times", offered, without)
			}
		})
	}
}

// The apps rules judge a view read through a tap as they do in check:
// check is the real client, reading a misbehaving app server's view
// through `mcpscope tap`; the tap's viewer finds the same apps findings in
// the capture.
func TestAppsRulesOnATap(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	rt := filepath.Join(base, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", rt)

	html, _ := json.Marshal(`<html><script src="https://cdn.example.com/app.js"></script></html>`)
	sc := mcptest.Script{Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`), On: map[string][][]string{
		"tools/list":     {{`{"jsonrpc":"2.0","id":{{id}},"result":{"tools":[` + appsModelTool + `]}}`}},
		"resources/list": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"resources":[]}}`}},
		"resources/read": {{`{"jsonrpc":"2.0","id":{{id}},"result":{"contents":[{"uri":"ui://get-time/app.html","mimeType":"text/html","text":` + string(html) + `}]}}`}},
	}}
	args := []string{"check", "--format", "json", "--relist-delay", "0s", "-e", asCLIVar + "=1", "--", os.Args[0], "tap", "--name", "apps", "--", "env"}
	args = append(append(args, sc.Env()...), os.Args[0])
	out, _, code := runCLI(t, args...)
	if code != exitServerError {
		t.Fatalf("check exit %d: %s", code, out)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Connected {
		t.Fatalf("check report %v: %s", err, out)
	}
	apps := func(ds []report.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			if strings.HasPrefix(d.Rule, "apps/") {
				out = append(out, d.Rule+": "+d.Message)
			}
		}
		sort.Strings(out)
		return out
	}
	want := apps(rep.Diagnostics)
	if len(want) != 2 {
		t.Fatalf("check found %d apps findings, want the MIME type and the scan:\n  %s", len(want), strings.Join(want, "\n  "))
	}
	var capture tap.Listed
	deadline := time.Now().Add(10 * time.Second)
	for capture.File == "" && time.Now().Before(deadline) {
		taps, _ := tap.List()
		for _, l := range taps {
			if l.Name == "apps" && !l.Live {
				capture = l
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if capture.File == "" {
		t.Fatal("the tap's capture is not listed")
	}
	src := tap.NewSource(capture)
	ch := src.Events()
	if err := src.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var evs []mcp.Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	if got := apps(report.Diagnostics(evs)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the doctor on the tap found:\n  %s\ncheck found:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
