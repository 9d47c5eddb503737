package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/mcptest"
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
