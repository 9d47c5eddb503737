package panes

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// What a pane counts reads right for one: the picker said "1 servers",
// the JSON editor "(1 problems)", a blob "1 bytes", a prompt "1 arg(s)".
func TestPanesCountOneInTheSingular(t *testing.T) {
	th, k := themes.Default(true), keymap.Default()

	p := NewPicker(th, k, "mcp.json", []PickerItem{{Name: "only", Kind: "stdio", Detail: "node server.js"}})
	p.SetSize(80, 24)
	if v := ansi.Strip(p.View()); !strings.Contains(v, "1 server: choose one to debug") {
		t.Errorf("the picker:\n%s", v)
	}

	e := NewJSONEdit(th, k, mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","required":["a"]}`)}, nil)
	e.SetSize(100, 24)
	e.SetValue(`{}`)
	e.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	if v := ansi.Strip(e.View()); !strings.Contains(v, "arguments do not validate (1 problem)") {
		t.Errorf("the JSON editor:\n%s", v)
	}

	if got := byteSize(1); got != "1 byte" {
		t.Errorf("byteSize(1) = %q", got)
	}

	pr := NewPrompts(th, k)
	pr.SetSize(80, 10)
	pr.SetGate(Gate{OK: true}, false)
	pr.SetPage([]json.RawMessage{json.RawMessage(`{"name":"greet","arguments":[{"name":"who"}]}`)}, true, "")
	if v := ansi.Strip(pr.View()); !strings.Contains(v, "greet 1 arg") || strings.Contains(v, "arg(s)") {
		t.Errorf("the prompts:\n%s", v)
	}
}
