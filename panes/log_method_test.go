package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// A narrow log cuts a row's subject, never its method: it read "→ req list
// #4" for resources/templates/list and "← resp W call create_entities" for
// tools/call. The subject is cut to the columns left, none to spare.
func TestLogRowsKeepTheMethodWhole(t *testing.T) {
	at := func(ms int) time.Time { return logT0.Add(time.Duration(ms) * time.Millisecond) }
	frames := []*mcp.Frame{
		{Seq: 1, Time: at(1), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "resources/templates/list", ID: "4",
			Raw: []byte(`{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}`)},
		{Seq: 2, Time: at(2), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "4", ReplyTo: 1, ReplyToMethod: "resources/templates/list", Latency: 228 * time.Microsecond,
			Raw: []byte(`{"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[]}}`)},
		{Seq: 3, Time: at(3), Dir: mcp.Outbound, Kind: mcp.KindRequest, Method: "tools/call", ID: "5",
			Raw: []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[]}}}`)},
		{Seq: 4, Time: at(40), Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "5", ReplyTo: 3, ReplyToMethod: "tools/call", Latency: 37 * time.Millisecond,
			Raw: []byte(`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"[]"}]}}`)},
		{Seq: 5, Time: at(41), Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/progress",
			Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":3,"total":10,"message":"indexing the third of ten folders of the project, slowly"}}`)},
	}
	for _, w := range []int{50, 60, 80} {
		l := NewLog(themes.Dark(), keymap.Default())
		l.SetSize(w, 20)
		warned := frames[3]
		l.SetDiagnostics(func(f *mcp.Frame) []*mcp.Diagnostic {
			if f == warned || (f.Seq == warned.Seq && f.Kind == warned.Kind) {
				return []*mcp.Diagnostic{{Severity: mcp.SeverityWarning, Rule: "x", Message: "m"}}
			}
			return nil
		})
		for _, f := range frames {
			l.Append(mcp.FrameEvent{Frame: f})
		}
		rows := logRowText(l)
		rowWith(t, rows, "→ req", "resources/templates/list")
		rowWith(t, rows, "← resp", "resources/templates/list")
		rowWith(t, rows, "→ req", "tools/call create_")
		rowWith(t, rows, "← resp", "W", "tools/call cr")
		if w == 50 {
			rowWith(t, rows, "← notif", "notifications/progress")
			continue
		}
		p := rowWith(t, rows, "notifications/progress 3/10 ind")
		if got := ansi.StringWidth(p); strings.Contains(p, "…") && got < w-2-1 {
			t.Errorf("width %d: the progress row was cut with %d columns to spare: %q", w, w-2-got, p)
		}
		for _, r := range rows {
			if strings.Contains(r, " …") {
				t.Errorf("width %d: a piece cut to a lone …: %q", w, r)
			}
			if ansi.StringWidth(r) > w-2 {
				t.Errorf("width %d: row wider than the pane: %q", w, r)
			}
		}
	}
}
