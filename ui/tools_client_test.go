package ui

import (
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// A tap's handshake names the client that spoke: the Tools pane starts
// in that client's view. mcpscope's own sessions stay as served.
func TestToolsStartAsTheConnectedClientSeesThem(t *testing.T) {
	for _, tc := range []struct {
		client string
		want   clients.ID
	}{{"claude-code", clients.Claude}, {"codex-mcp-client", clients.Codex}, {"mcp-test-client", clients.Gemini}, {"mcpscope", clients.Generic}} {
		m := newTestModel("dark", 120, 35)
		evs := sessionEvents()
		for i, ev := range evs {
			if hs, ok := ev.(mcp.HandshakeEvent); ok {
				h := *hs.Handshake
				h.ClientInfo = mcp.Implementation{Name: tc.client}
				evs[i] = mcp.HandshakeEvent{Time: hs.Time, Handshake: &h}
			}
		}
		feed(m, evs)
		if got := m.tools.ViewAs(); got != tc.want && !(tc.want == clients.Generic && got == "") {
			t.Errorf("client %s: the tools are shown as %q, want %q", tc.client, got, tc.want)
		}
	}
}
