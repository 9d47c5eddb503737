package export

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// A tool view's rows (kind "app") are a section of both exports, the
// view's errors with them; server strings stay text.
func TestExportsShowToolViewRows(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := FromEvents("s.jsonl", record.Entry{Type: "session", Time: at}, []mcp.Event{
		mcp.TransportEvent{Time: at, Kind: "app", Summary: "get-time view → host: ui/initialize #0"},
		mcp.TransportEvent{Time: at.Add(time.Millisecond), Kind: "app", Summary: "get-time view: csp",
			Err: errors.New("CSP blocked https://cdn.example/<b>x.js (script-src-elem)")},
		mcp.TransportEvent{Time: at, Kind: "http", Summary: "POST /mcp → 200"},
	})
	var md, page bytes.Buffer
	if err := Markdown(&md, s); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, s); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": page.String()} {
		if !strings.Contains(out, "Tool views") || !strings.Contains(out, "get-time view → host: ui/initialize #0") ||
			!strings.Contains(out, "script-src-elem") || strings.Contains(out, "<b>x.js") {
			t.Errorf("%s lacks the view's rows or lets markup through:\n%s", name, out)
		}
	}
}
