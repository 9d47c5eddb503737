package ui

import (
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
)

// explainUnlisted runs when the stream has ended: each discovery list that
// never came says why in its pane, instead of "waiting for tools/list…" or
// "nothing listed" (nothing will come now, and the server may well have
// tools). A list whose capability was not declared is left to the gate.
func (m *Model) explainUnlisted() {
	_, watching := m.src.(session.Watcher)
	for _, l := range mcp.DiscoveryLists() {
		if _, ok := m.lists[l.Method]; ok {
			continue
		}
		if m.handshake != nil && !m.handshake.HasCapability(l.Capability) {
			continue
		}
		why := unlistedWhy(l.Method, l.Noun, watching, m.asked[l.Method], m.handshake != nil)
		switch l.Method {
		case mcp.MethodToolsList:
			m.tools.SetUnlisted(why)
		case mcp.MethodResourcesList, mcp.MethodResourceTemplatesList:
			m.resources.SetUnlisted(l.Method, why)
		case mcp.MethodPromptsList:
			m.prompts.SetUnlisted(why)
		}
	}
}

// unlistedWhy says why a list is not there: what a watched client did (a
// recording, a tap) or what became of mcpscope's own connection.
func unlistedWhy(method, noun string, watching, asked, shook bool) string {
	switch {
	case watching && !shook:
		return "The recording ends before the handshake: no " + method + " in it."
	case watching && asked:
		return "The client asked for " + method + ", but the recording ends before the answer."
	case watching:
		return "The client never asked for " + method + " in this recording: the server's " + noun + " are not in it."
	case !shook:
		return "The handshake failed, so " + method + " was never sent."
	case asked:
		return "The connection ended before the server answered " + method + "."
	}
	return "The connection ended before " + method + " was sent."
}
