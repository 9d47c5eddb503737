package panes

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// kind:app keeps a tool view's rows (the preview's bridge messages and
// reports) and nothing else.
func TestLogFilterKindApp(t *testing.T) {
	l := NewLog(themes.Default(true), keymap.Default())
	l.SetSize(120, 10)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.Append(mcp.TransportEvent{Time: at, Kind: "http", Summary: "POST /mcp → 200"})
	l.Append(mcp.TransportEvent{Time: at.Add(time.Millisecond), Kind: "app", Summary: "view get-time ← view ui/initialize #1",
		Fields: []mcp.Field{{Key: "message", Value: `{"jsonrpc":"2.0","id":1,"method":"ui/initialize"}`}}})
	l.SetFilter("kind:app")
	v := ansi.Strip(l.View())
	if !strings.Contains(v, "ui/initialize #1") || strings.Contains(v, "POST /mcp") {
		t.Errorf("kind:app shows:\n%s", v)
	}
}
