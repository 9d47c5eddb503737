package panes

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

func fixturePicker(dark bool, w, h int) *Picker {
	p := NewPicker(themes.Default(dark), keymap.Default(), "claude_desktop_config.json", []PickerItem{
		{Name: "filesystem", Kind: "stdio", Detail: "npx -y @modelcontextprotocol/server-filesystem /home/ada"},
		{Name: "github", Kind: "http", Detail: "https://api.example.com/mcp"},
		{Name: "weather", Kind: "stdio", Detail: "uv run weather.py"},
	})
	p.SetSize(w, h)
	return p
}

func TestPickerView(t *testing.T) {
	goldenViews(t, func(dark bool, w, h int) interface{ View() string } {
		p := fixturePicker(dark, w, h)
		p.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		return p
	})
}

func TestPickerChooses(t *testing.T) {
	p := fixturePicker(true, 80, 24)
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyDown}, {Code: tea.KeyDown}, {Code: tea.KeyDown}, {Code: tea.KeyUp}} {
		p.Update(k)
	}
	cmd := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter produced no command")
	}
	if got := cmd(); got != (PickedMsg{Index: 1}) {
		t.Errorf("enter after down,down,down,up = %#v, want index 1 (the cursor stops at the last item)", got)
	}
	cmd = p.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if got := cmd(); got != (PickedMsg{Index: -1}) {
		t.Errorf("q = %#v, want -1", got)
	}
}

func TestPickerScrollsToCursor(t *testing.T) {
	var items []PickerItem
	for i := 0; i < 40; i++ {
		items = append(items, PickerItem{Name: "server-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Kind: "stdio", Detail: "cmd"})
	}
	p := NewPicker(themes.Default(true), keymap.Default(), "mcp.json", items)
	p.SetSize(80, 12)
	for i := 0; i < 30; i++ {
		p.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	}
	v := ansi.Strip(p.View())
	assertPaneSize(t, p.View(), 80, 12)
	if !strings.Contains(v, "▸ "+items[30].Name) {
		t.Errorf("the cursor row is not visible:\n%s", v)
	}
}

func TestPickerSecurity(t *testing.T) {
	p := NewPicker(themes.Default(true), keymap.Default(), "x.json", []PickerItem{
		{Name: "evil\x1b]0;pwned\x07", Kind: "stdio", Detail: "sh -c 'x\x1b[2J'"},
	})
	p.SetSize(80, 24)
	assertNoRawEscapes(t, p.View(), `evil\x1b]0;pwned\x07`, `x\x1b[2J`)
}
