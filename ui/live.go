package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A read-only view (a tap) can open a separate live session on the same
// server for experiments: Config.LiveSession makes it (a new mcpscope on
// the tap's command or URL), Bubble Tea hands it the terminal, and this
// view, still following the client's conversation, comes back when it
// ends. Nothing is sent into the watched conversation.

// liveSessionDoneMsg says the live session has ended and the terminal is
// this view's again.
type liveSessionDoneMsg struct{ err error }

// liveSessionKey is the LiveSession binding, shown only where it applies.
func (m *Model) liveSessionKey() key.Binding {
	b := m.keys.Global.LiveSession
	b.SetEnabled(m.cfg.LiveSession != nil)
	return b
}

func (m *Model) openLiveSession() tea.Cmd {
	c := m.cfg.LiveSession()
	if c == nil {
		m.setNote("no live session can be opened on this server", false)
		return nil
	}
	return tea.Exec(c, func(err error) tea.Msg { return liveSessionDoneMsg{err: err} })
}

func (m *Model) liveSessionDone(msg liveSessionDoneMsg) {
	if msg.err != nil {
		m.setNote("the live session: "+msg.err.Error(), false)
		return
	}
	m.setNote("back from the live session; this view kept following the tap", true)
}
