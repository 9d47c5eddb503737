package panes

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// A server that did not declare tools: the pane says why instead of
// "waiting for tools/list…" forever, and A sends tools/list anyway.
func TestToolsGateSaysWhyAndOffersAProbe(t *testing.T) {
	p := NewTools(themes.Default(true), keymap.Default())
	p.SetSize(80, 12)
	p.Focus()
	p.SetGate(Gate{Why: `the server did not declare the "tools" capability, so it offers no tools`})
	view := ansi.Strip(p.View())
	if strings.Contains(view, "waiting for tools/list") || !strings.Contains(view, `did not declare the "tools"`) || !strings.Contains(view, "press A to send anyway") {
		t.Fatalf("gated view:\n%s", view)
	}
	cmd := p.Update(tea.KeyPressMsg{Code: 'A', Text: "A"})
	if cmd == nil {
		t.Fatal("A did nothing")
	}
	if msg, ok := cmd().(SendAnywayMsg); !ok || msg.Method != mcp.MethodToolsList {
		t.Errorf("A sent %#v", cmd())
	}
}

// R lists tools again (a list that changed without list_changed).
func TestToolsRelistKey(t *testing.T) {
	p := newFixtureTools(true, 80, 20)
	cmd := p.Update(tea.KeyPressMsg{Code: 'R', Text: "R"})
	if cmd == nil {
		t.Fatal("R did nothing")
	}
	if msg, ok := cmd().(ListPageMsg); !ok || msg.Method != mcp.MethodToolsList || msg.Cursor != "" {
		t.Errorf("R sent %#v", cmd())
	}
}

// After a failed handshake the capabilities pane says so.
func TestCapsSaysTheHandshakeFailed(t *testing.T) {
	c := NewCaps(themes.Default(true), keymap.Default())
	c.SetSize(80, 10)
	c.SetFailed("bad-version: the server answered protocol version 1999-01-01")
	view := ansi.Strip(c.View())
	if strings.Contains(view, "waiting for the handshake") || !strings.Contains(view, "handshake failed") || !strings.Contains(view, "1999-01-01") {
		t.Errorf("caps view after a failed handshake:\n%s", view)
	}
}
