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
	if got := cmd(); got != (PickedMsg{Index: 1, Item: PickerItem{Name: "github", Kind: "http", Detail: "https://api.example.com/mcp"}}) {
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

// A list refreshed while it is shown: before the user moves, the cursor
// stays on the first row, where what just came is listed; once they have
// moved, it stays on their item, wherever the refresh puts it. An empty
// list says what it waits for.
func TestPickerKeepsItsPlaceAcrossRefreshes(t *testing.T) {
	item := func(key string) PickerItem { return PickerItem{Name: key, Kind: "ended", Detail: "cmd", Key: key} }
	p := NewPicker(themes.Default(true), keymap.Default(), "Taps", nil)
	p.Empty = "No taps yet: waiting for one."
	p.SetSize(60, 12)
	if v := ansi.Strip(p.View()); !strings.Contains(v, "No taps yet: waiting for one.") {
		t.Fatalf("the empty list does not say what it waits for:\n%s", v)
	}
	p.SetItems([]PickerItem{item("b"), item("a")})
	p.SetItems([]PickerItem{item("c"), item("b"), item("a")})
	if p.Selected() != 0 {
		t.Errorf("before any move the cursor went to row %d, want the new first row", p.Selected())
	}
	p.Update(tea.KeyPressMsg{Code: tea.KeyDown}) // on b
	p.SetItems([]PickerItem{item("d"), item("c"), item("b"), item("a")})
	if got := p.Selected(); got != 2 {
		t.Errorf("after a move the cursor is on row %d, want 2 (b)", got)
	}
	p.SetItems([]PickerItem{item("d")}) // b is gone
	if got := p.Selected(); got != 0 {
		t.Errorf("with its item gone the cursor is on row %d of 1", got)
	}
	cmd := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if got := cmd().(PickedMsg); got.Item.Key != "d" {
		t.Errorf("enter chose %+v", got)
	}
}
