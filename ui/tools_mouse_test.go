package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
)

// The wheel over the tools pane scrolls what it is over: the details
// column beside the list, or the list. The pane learns where it is drawn
// from the layout, in both the wide and the tabbed layout.
func TestToolsWheelScrollsWhatItIsOver(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 35}, {80, 24}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		feed(m, everythingTools(t))
		press(m, "3")
		r := m.layout.tools
		screen := func() string { return ansi.Strip(content(m)) }
		wheel := func(x int, b tea.MouseButton) {
			m.Update(tea.MouseWheelMsg(tea.Mouse{X: x, Y: r.Min.Y + 3, Button: b}))
		}
		if !strings.Contains(screen(), "▸ echo") || !strings.Contains(screen(), "Echoes back the input string") {
			t.Fatalf("%dx%d: echo is not selected with its details:\n%s", sz.w, sz.h, screen())
		}
		// Over the details (the column's right edge): the details move,
		// the list does not.
		wheel(r.Max.X-3, tea.MouseWheelDown)
		wheel(r.Max.X-3, tea.MouseWheelDown)
		if s := screen(); !strings.Contains(s, "▸ echo") || strings.Contains(s, "Echoes back the input string") {
			t.Fatalf("%dx%d: the wheel over the details did not scroll them alone:\n%s", sz.w, sz.h, s)
		}
		// Over the list (just right of its border): the cursor moves.
		wheel(r.Min.X+3, tea.MouseWheelDown)
		if s := screen(); strings.Contains(s, "▸ echo") {
			t.Fatalf("%dx%d: the wheel over the list did not move it:\n%s", sz.w, sz.h, s)
		}
	}
}

// A click on a resource's or a prompt's row selects it, in the wide and
// the tabbed layout.
func TestExplorerClickSelectsTheRow(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 35}, {80, 24}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		var res, prompts []json.RawMessage
		for i := range 5 {
			res = append(res, json.RawMessage(fmt.Sprintf(`{"name":"res-%d","uri":"demo://r/%d"}`, i, i)))
			prompts = append(prompts, json.RawMessage(fmt.Sprintf(`{"name":"prompt-%d"}`, i)))
		}
		feed(m, []mcp.Event{
			mcp.ListEvent{Time: at(41), Method: "resources/list", Pages: 1, Items: res},
			mcp.ListEvent{Time: at(42), Method: "prompts/list", Pages: 1, Items: prompts},
		})
		for _, c := range []struct{ key, item string }{{"4", "res-2"}, {"5", "prompt-2"}} {
			press(m, c.key)
			// Click where the third item is drawn.
			y := -1
			for i, l := range strings.Split(ansi.Strip(content(m)), "\n") {
				if strings.Contains(l, "  "+c.item+" ") {
					y = i
				}
			}
			if y < 0 {
				t.Fatalf("%dx%d: %s is not on screen", sz.w, sz.h, c.item)
			}
			m.Update(tea.MouseClickMsg(tea.Mouse{X: m.layout.tools.Min.X + 5, Y: y, Button: tea.MouseLeft}))
			if s := ansi.Strip(content(m)); !strings.Contains(s, "▸ "+c.item) {
				t.Errorf("%dx%d: the click did not select %q:\n%s", sz.w, sz.h, c.item, s)
			}
		}
	}
}
