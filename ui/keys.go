package ui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes"
)

// handleKey routes a key: the help overlay, then a modal, then global keys
// (unless the focused pane is capturing text), then the focused pane.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.keys.Global
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if m.modal == modalHelp {
		if key.Matches(msg, g.Help) || key.Matches(msg, g.Back) || key.Matches(msg, g.Quit) {
			m.modal = modalNone
			return nil
		}
		m.helpList.Update(msg)
		return nil
	}
	if p := m.modalPane(); p != nil {
		if m.modal == modalHandshake && (key.Matches(msg, g.Back) || key.Matches(msg, g.Handshake)) {
			m.closeModal()
			return nil
		}
		if !capturing(p) && key.Matches(msg, g.Quit) {
			return tea.Quit
		}
		if m.modal == modalResult && !capturing(p) && key.Matches(msg, m.keys.Result.Preview) {
			return m.previewResult()
		}
		if m.modal == modalDetail && key.Matches(msg, m.keys.Detail.Preview) {
			return m.previewFrame(m.detail.Frame())
		}
		return p.Update(msg)
	}
	focused := m.pane(m.focus)
	if capturing(focused) {
		return focused.Update(msg)
	}
	switch {
	case key.Matches(msg, g.Quit):
		return tea.Quit
	case key.Matches(msg, g.Help):
		m.modal = modalHelp
		m.helpList.Reset()
		return nil
	case key.Matches(msg, g.NextPane):
		m.setFocus((m.focus + 1) % numFocus)
		return nil
	case key.Matches(msg, g.PrevPane):
		m.setFocus((m.focus + numFocus - 1) % numFocus)
		return nil
	case key.Matches(msg, g.Reconnect) && !m.cfg.NoReconnect:
		return m.reconnect()
	case key.Matches(msg, g.Handshake):
		m.openModal(modalHandshake)
		return nil
	case key.Matches(msg, g.Split) && !m.layout.tabbed:
		if msg.String() == "<" {
			m.moveSplit(-splitStep)
		} else {
			m.moveSplit(splitStep)
		}
		return nil
	case key.Matches(msg, g.LiveSession) && m.cfg.LiveSession != nil:
		return m.openLiveSession()
	case key.Matches(msg, m.keys.Explore.Ping):
		m.ping()
		return nil
	case key.Matches(msg, m.keys.Calls.List):
		return m.openCalls()
	case key.Matches(msg, m.keys.Explore.Cancel):
		if o := m.activity.Running(); o != nil {
			m.cancelOp(o.ID)
		}
		return nil
	case key.Matches(msg, m.keys.Explore.Jump):
		if n, err := strconv.Atoi(msg.String()); err == nil && n >= 1 && n <= int(numFocus) {
			m.setFocus(focus(n - 1))
		}
		return nil
	}
	return focused.Update(msg)
}

// ctrlCQuit is the quit binding where keys type (a capturing pane or
// modal): there only ctrl+c quits (see handleKey), so only it is shown.
func ctrlCQuit(quit key.Binding) key.Binding {
	return key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", quit.Help().Desc))
}

func capturing(p panes.Pane) bool {
	c, ok := p.(panes.Capturing)
	return ok && c.Capturing()
}

// ShortHelp is the help bar: the keys of what has the keyboard, then the
// global keys.
func (m *Model) ShortHelp() []key.Binding {
	g := m.keys.Global
	if m.modal == modalHelp {
		s := m.keys.Scroll
		return []key.Binding{s.Up, s.Down, s.PageDown, s.Top, s.Bottom, g.Help, g.Back}
	}
	if p := m.modalPane(); p != nil {
		b := p.ShortHelp()
		if capturing(p) {
			return append(b, ctrlCQuit(g.Quit))
		}
		return append(b, g.Quit)
	}
	focused := m.pane(m.focus)
	b := focused.ShortHelp()
	if capturing(focused) {
		return append(b, ctrlCQuit(g.Quit))
	}
	e := m.keys.Explore
	cancel := e.Cancel
	cancel.SetEnabled(m.activity.Running() != nil)
	split := g.Split
	split.SetEnabled(!m.layout.tabbed)
	return append(b, g.NextPane, e.Jump, e.Ping, cancel, g.Handshake, split, m.liveSessionKey(), m.reconnectKey(), g.Help, g.Quit)
}

// FullHelp is the full help overlay: the focused pane's keys, then the
// global ones.
func (m *Model) FullHelp() [][]key.Binding {
	g := m.keys.Global
	groups := m.pane(m.focus).FullHelp()
	e := m.keys.Explore
	split := g.Split
	split.SetEnabled(!m.layout.tabbed)
	return append(groups, []key.Binding{g.NextPane, g.PrevPane, e.Jump, e.Ping, e.Cancel, g.Handshake, m.keys.Calls.List, split, m.liveSessionKey(), m.reconnectKey(), g.Back, g.Help, g.Quit})
}

// reconnectKey is the Reconnect binding, shown only where it applies.
func (m *Model) reconnectKey() key.Binding {
	b := m.keys.Global.Reconnect
	b.SetEnabled(!m.cfg.NoReconnect)
	if m.cfg.ReconnectHelp != "" {
		b.SetHelp(b.Help().Key, m.cfg.ReconnectHelp)
	}
	if _, ok := m.reloads(); ok {
		b.SetHelp(b.Help().Key, "rebuild & restart")
	}
	return b
}
