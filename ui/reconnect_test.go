package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
)

// What the status line said of the old connection (a request refused by
// the closed client) is gone once r has connected again: the header says
// ready and the status line must not contradict it.
func TestReconnectClearsTheOldStatus(t *testing.T) {
	starts := 0
	m := New(Config{Theme: "dark", Target: "fake", NewClient: func() *mcp.Client {
		starts++
		if starts == 1 {
			return fakeClient("exit-at-start")()
		}
		return fakeClient("")()
	}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	runUntil(t, m, m.Init(), func() bool { return m.ended })
	press(m, "P") // ping the closed client: refused
	if m.note == "" {
		t.Fatalf("a ping of the ended server left no note; screen:\n%s", ansi.Strip(content(m)))
	}
	stale := m.note
	runUntil(t, m, m.reconnect(), func() bool { return m.state == mcp.StateReady })
	status := ansi.Strip(m.renderStatus())
	if strings.Contains(status, stale) {
		t.Errorf("after reconnecting the status line still says %q:\n%s", stale, ansi.Strip(content(m)))
	}
	m.Close()
}
