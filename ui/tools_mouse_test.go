package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
