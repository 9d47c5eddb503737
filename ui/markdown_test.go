package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes/markdown"
)

// A text/markdown resource too big to render at once opens as its
// source under a note; the root starts its rendering after the message
// that opened it, and RenderedMsg brings the rendering on screen.
func TestBigMarkdownResourceRendersOffTheUIGoroutine(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	text := strings.Repeat("- **item** of a long list\n", markdown.SyncBytes/20+4)
	result, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": "doc.md", "mimeType": "text/markdown", "text": text}}})
	frame := &mcp.Frame{Seq: 9, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "9", Raw: []byte(`{"jsonrpc":"2.0","id":9,"result":` + string(result) + `}`)}
	op := session.Op{ID: 81, Kind: session.KindRead, Method: mcp.MethodResourcesRead, Label: "resources/read doc.md"}
	_, cmd := m.Update(eventsMsg{gen: m.gen, events: []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusOK, Frame: frame, Result: &session.ReadResult{URI: "doc.md", Raw: result}}}})
	screen := ansi.Strip(content(m))
	if !strings.Contains(screen, markdown.PendingNote) || !strings.Contains(screen, "- **item**") {
		t.Fatalf("before rendering, the view is not the source under a note:\n%s", screen)
	}
	if cmd == nil {
		t.Fatal("the root starts no rendering for the content view")
	}
	runCmd(m, cmd)
	screen = ansi.Strip(content(m))
	if strings.Contains(screen, markdown.PendingNote) || !strings.Contains(screen, "• item of a long list") {
		t.Errorf("after RenderedMsg, the view is not rendered:\n%s", screen)
	}
	press(m, "m")
	if screen = ansi.Strip(content(m)); !strings.Contains(screen, "- **item**") {
		t.Errorf("m did not show the source:\n%s", screen)
	}
}
