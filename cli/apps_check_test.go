package cli

import (
	"encoding/json"
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
