package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
)

// Through the root model, at every size, the log's long rows are read
// whole: → scrolls them sideways and W wraps them (no global key takes
// these from the log), as in every other list.
func TestLogRowsReadWholeThroughTheRoot(t *testing.T) {
	const end = "END-OF-THE-LONG-LINE"
	long := "a stderr line " + strings.Repeat("that goes on ", 20) + end
	for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
		m := newTestModel("dark", sz.w, sz.h)
		feed(m, sessionEvents())
		feed(m, []mcp.Event{mcp.StderrEvent{Time: at(30), Line: long}})
		if m.focus != focusLog {
			t.Fatalf("%dx%d: the log is not focused at start", sz.w, sz.h)
		}
		if strings.Contains(ansi.Strip(content(m)), end) {
			t.Fatalf("%dx%d: the long line fits already; make it longer", sz.w, sz.h)
		}
		for range 12 {
			m.Update(tea.KeyPressMsg{Code: tea.KeyRight})
		}
		screen := ansi.Strip(content(m))
		if !strings.Contains(screen, end) || !strings.Contains(screen, "→") {
			t.Errorf("%dx%d: → did not scroll the log to the end of its long row:\n%s", sz.w, sz.h, screen)
		}
		m.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
		m.Update(tea.KeyPressMsg{Code: 'W', Text: "W", Mod: tea.ModShift})
		screen = ansi.Strip(content(m))
		if !strings.Contains(screen, "wrap") || !strings.Contains(strings.ReplaceAll(screen, "│", ""), "END-OF-THE") {
			t.Errorf("%dx%d: W did not wrap the log's long row:\n%s", sz.w, sz.h, screen)
		}
		requireScreen(t, content(m), sz.w, sz.h)
	}
}
