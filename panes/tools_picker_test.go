package panes

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/themes"
)

// At 80 and 60 columns the picker keeps the client under its cursor in
// sight, the last one included, and every client can be picked.
func TestToolsPickerKeepsTheChoiceInSight(t *testing.T) {
	for _, w := range []int{80, 60} {
		p := NewTools(themes.Default(true), keymap.Default())
		p.SetSize(w, 24)
		p.Focus()
		p.SetServer(mcp.Implementation{Name: "srv"})
		setCounted(t, p, costTools(t, small))
		p.Update(press("v"))
		for i, id := range clients.All() {
			name := id.Name()
			if id == clients.Generic {
				name = "as served"
			}
			if line := pickerRow(p); !strings.Contains(line, "["+name+"]") {
				t.Errorf("%d columns, client %d: %q not in sight: %q", w, i, name, line)
			}
			p.Update(press("right"))
		}
	}
}

func pickerRow(p *Tools) string {
	for _, l := range strings.Split(ansi.Strip(p.View()), "\n") {
		if strings.Contains(l, "view as") {
			return l
		}
	}
	return ""
}
