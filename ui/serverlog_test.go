package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// A person's flow: 1,000 server log messages arrive; the user goes
// to the Logs pane, scrolls to the first and opens it; the detail shows
// that message's frame. At every size the acceptance suite uses.
func TestServerLogScrollToFirstAndOpen(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := newTestModel("dark", sz.w, sz.h)
			feed(m, sessionEvents())
			var evs []mcp.Event
			for _, ev := range notifications(100, 1000) {
				evs = append(evs, ev)
				evs = append(evs, session.Derive(ev)...) // the LogMessageEvent, as the session derives it
			}
			feed(m, evs)
			press(m, "6")
			if m.focus != focusServerLog {
				t.Fatalf("6 focused %v", m.focus)
			}
			screen := ansi.Strip(content(m))
			if !strings.Contains(screen, "line 1099") || strings.Contains(screen, "line 100\n") {
				t.Fatalf("the newest message is not shown:\n%s", screen)
			}
			// PgUp, then the wheel over the pane, then g.
			press(m, "pgup")
			m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: sz.w / 2, Y: sz.h / 2})
			press(m, "g")
			screen = ansi.Strip(content(m))
			if !strings.Contains(screen, "▸ 03:04:05.100") || !strings.Contains(screen, "line 100 ") {
				t.Fatalf("g did not reach the first message:\n%s", screen)
			}
			// A click on the third entry's row selects it.
			m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, X: m.layout.tools.Min.X + 3, Y: m.layout.tools.Min.Y + 3})
			if got := m.serverLog.Selected(); got == nil || got.Seq != 102 {
				t.Fatalf("a click on the third row selected %v", got)
			}
			press(m, "g")
			press(m, "enter")
			if m.modal != modalDetail || m.detail.Frame() == nil || m.detail.Frame().Seq != 100 {
				t.Fatalf("enter did not open the first message's frame (modal %v)", m.modal)
			}
			screen = ansi.Strip(content(m))
			if !strings.Contains(screen, "Frame #100") || !strings.Contains(screen, `"line 100"`) {
				t.Fatalf("the detail does not show frame #100:\n%s", screen)
			}
			requireScreen(t, content(m), sz.w, sz.h)
		})
	}
}
