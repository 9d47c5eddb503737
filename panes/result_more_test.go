package panes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

const sumSchema = `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`

func resultViewText(t *testing.T, msg ToolResultMsg) (*Result, string) {
	t.Helper()
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	if cmd := r.SetResult(msg); cmd != nil {
		r.Update(cmd())
	}
	return r, ansi.Strip(r.View())
}

func TestResultChecksOutputSchema(t *testing.T) {
	for _, tc := range []struct {
		name, result, want string
	}{
		{"matches", `{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}`, "✓ structuredContent matches outputSchema"},
		{"mismatch", `{"content":[],"structuredContent":{"total":3}}`, "✗ structuredContent does not match outputSchema: /sum is required"},
		{"missing", `{"content":[{"type":"text","text":"3"}]}`, "✗ outputSchema declared, but the result has no structuredContent"},
	} {
		_, v := resultViewText(t, ToolResultMsg{Name: "add", Result: json.RawMessage(tc.result), OutputSchema: json.RawMessage(sumSchema)})
		if !strings.Contains(v, tc.want) {
			t.Errorf("%s: view lacks %q:\n%s", tc.name, tc.want, v)
		}
	}
	// Without an outputSchema nothing is claimed either way.
	_, v := resultViewText(t, ToolResultMsg{Name: "add", Result: json.RawMessage(`{"content":[],"structuredContent":{"total":3}}`)})
	if strings.Contains(v, "outputSchema") {
		t.Errorf("a tool without outputSchema was checked:\n%s", v)
	}
}

func tinyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestResultMediaAndLinks(t *testing.T) {
	pic := tinyPNG(t, 3, 2)
	raw, _ := json.Marshal(map[string]any{"content": []any{
		map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(pic)},
		map[string]any{"type": "resource_link", "uri": "demo://readme", "name": "readme"},
	}})
	r, v := resultViewText(t, ToolResultMsg{Name: "img/../x", Result: raw})
	if !strings.Contains(v, "dimensions 3×2 png") {
		t.Errorf("no image dimensions:\n%s", v)
	}
	// w writes the decoded image, under a name the server cannot steer.
	msg := r.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})()
	if batch, ok := msg.(tea.BatchMsg); ok {
		msg = batch[0]()
	}
	save, ok := msg.(SaveBlobMsg)
	// (the root makes the name safe and adds the extension: ui.saveName)
	if !ok || !bytes.Equal(save.Data, pic) || save.Name != "img/../x-0" || save.MimeType != "image/png" {
		t.Errorf("w gave %#v", msg)
	}
	// s saves the result exactly as received, as JSON named after the tool.
	if got, ok := r.Update(tea.KeyPressMsg{Code: 's', Text: "s"})().(SaveBlobMsg); !ok || !bytes.Equal(got.Data, raw) ||
		got.Name != "result-img/../x" || got.MimeType != "application/json" {
		t.Errorf("s gave %#v", got)
	}
	// o opens the image (result_media.go), then the resource link with
	// resources/read.
	if got, ok := r.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})().(OpenMediaMsg); !ok || !bytes.Equal(got.Data, pic) {
		t.Errorf("o gave %#v", got)
	}
	if got := r.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})(); got != (ReadResourceMsg{URI: "demo://readme"}) {
		t.Errorf("o gave %#v", got)
	}
}
