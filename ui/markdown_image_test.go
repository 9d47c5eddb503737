package ui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// smallPNG is a 64×32 picture, base64 as a result carries it.
func smallPNG(t *testing.T) string {
	m := image.NewRGBA(image.Rect(0, 0, 64, 32))
	for i := range m.Pix {
		m.Pix[i] = uint8(i)
	}
	m.SetRGBA(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// The root runs what a read of Markdown and an image needs: the Markdown
// is rendered and the picture decoded and drawn below its size line; m
// shows the source and keeps the picture.
func TestReadOfMarkdownAndImage(t *testing.T) {
	m := New(Config{Target: "test server", Images: "blocks"})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	feed(m, sessionEvents())
	result, _ := json.Marshal(map[string]any{"contents": []any{
		map[string]any{"uri": "doc.md", "mimeType": "text/markdown", "text": "- **item** one"},
		map[string]any{"uri": "logo.png", "mimeType": "image/png", "blob": smallPNG(t)},
	}})
	frame := &mcp.Frame{Seq: 9, Dir: mcp.Inbound, Kind: mcp.KindResponse, ID: "9", Raw: []byte(`{"jsonrpc":"2.0","id":9,"result":` + string(result) + `}`)}
	op := session.Op{ID: 81, Kind: session.KindRead, Method: mcp.MethodResourcesRead, Label: "resources/read doc.md"}
	_, cmd := m.Update(eventsMsg{gen: m.gen, events: []mcp.Event{session.OpDoneEvent{Op: op, Status: session.StatusOK, Frame: frame, Result: &session.ReadResult{URI: "doc.md", Raw: result}}}})
	follow(m, cmd)
	screen := ansi.Strip(content(m))
	if !strings.Contains(screen, "• item one") || !strings.Contains(screen, "binary,") || !strings.Contains(screen, "▀") {
		t.Fatalf("the read does not show its Markdown rendered and its picture:\n%s", screen)
	}
	press(m, "m")
	screen = ansi.Strip(content(m))
	if !strings.Contains(screen, "- **item** one") || !strings.Contains(screen, "▀") {
		t.Errorf("m: not the source with the picture:\n%s", screen)
	}
}

// Under --markdown a tool's text block is rendered, and its image block
// drawn, in one result.
func TestToolResultMarkdownTextAndImage(t *testing.T) {
	m := New(Config{Target: "test server", Images: "blocks", MarkdownText: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	feed(m, sessionEvents())
	result, _ := json.Marshal(map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "- **item** one"},
		map[string]any{"type": "image", "mimeType": "image/png", "data": smallPNG(t)},
	}})
	_, cmd := m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "shot", Result: result}})
	follow(m, cmd)
	screen := ansi.Strip(content(m))
	if !strings.Contains(screen, "• item one") || !strings.Contains(screen, "[1] image") || !strings.Contains(screen, "▀") {
		t.Fatalf("the result does not show its Markdown rendered and its picture:\n%s", screen)
	}
	press(m, "m")
	screen = ansi.Strip(content(m))
	if !strings.Contains(screen, "- **item** one") || !strings.Contains(screen, "▀") {
		t.Errorf("m: not the source with the picture:\n%s", screen)
	}
}
