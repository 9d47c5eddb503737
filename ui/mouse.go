package ui

import (
	"image"

	tea "charm.land/bubbletea/v2"
)

// handleMouse focuses the pane under a click and scrolls the pane under
// the wheel, using the same rectangles the layout drew with.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	mouse := msg.Mouse()
	pt := image.Pt(mouse.X, mouse.Y)
	l := m.layout
	if m.modal != modalNone {
		if _, wheel := msg.(tea.MouseWheelMsg); wheel && m.modal == modalHelp {
			m.helpList.Update(msg)
			return nil
		}
		if p := m.modalPane(); p != nil {
			if _, wheel := msg.(tea.MouseWheelMsg); wheel {
				return p.Update(msg)
			}
		}
		if click, ok := msg.(tea.MouseClickMsg); ok && pt.In(l.modal) && m.modal == modalAsk {
			return m.ask.Update(inModal(click, l.modal))
		}
		if click, ok := msg.(tea.MouseClickMsg); ok && pt.In(l.modal) && m.modal == modalCalls && click.Button == tea.MouseLeft {
			m.callsPane.ClickRow(click.Y - l.modal.Min.Y)
			return nil
		}
		// A click outside closes a modal that only shows something. A
		// server's ask (elicitation, sampling, URL elicitation) closes
		// only by an answer: closing it on a stray click would lose the
		// request, which the server would wait on until it gave up.
		if _, click := msg.(tea.MouseClickMsg); click && !pt.In(l.modal) && m.modal != modalAsk {
			m.closeModal()
			m.modal = modalNone
			if len(m.queue) > 0 {
				return m.showNextAsk()
			}
		}
		return nil
	}
	if f := m.formPane(); m.toolsWide && f != nil {
		// The arguments form is a layer over every pane: the panes under
		// it cannot be clicked, and a stray click must not take the
		// keyboard from a half-filled form.
		switch msg := msg.(type) {
		case tea.MouseWheelMsg:
			return f.Update(msg)
		case tea.MouseClickMsg:
			if pt.In(l.modal) {
				return f.Update(inModal(msg, l.modal))
			}
		}
		return nil
	}
	switch msg := msg.(type) {
	case tea.MouseClickMsg:
		if l.tabbed && pt.In(l.tabs) {
			if f, ok := m.tabAt(mouse.X); ok {
				m.setFocus(f)
			}
			return nil
		}
		if !l.tabbed && pt.In(l.slotTabs) {
			if f, ok := m.slotTabAt(mouse.X); ok {
				m.setFocus(f)
			}
			return nil
		}
		f, ok := m.paneAt(pt)
		if !ok {
			return nil
		}
		m.setFocus(f)
		if f == focusLog && mouse.Button == tea.MouseLeft {
			m.logPane.ClickRow(mouse.Y - l.log.Min.Y)
		}
		if f == focusServerLog && mouse.Button == tea.MouseLeft {
			m.serverLog.ClickRow(mouse.Y - l.tools.Min.Y)
		}
		if f == focusResources && mouse.Button == tea.MouseLeft {
			m.resources.ClickRow(mouse.Y - l.tools.Min.Y)
		}
		if f == focusPrompts && mouse.Button == tea.MouseLeft {
			m.prompts.ClickRow(mouse.Y - l.tools.Min.Y)
		}
		return m.pane(f).Update(msg)
	case tea.MouseWheelMsg:
		if f, ok := m.paneAt(pt); ok {
			return m.pane(f).Update(msg)
		}
	}
	return nil
}

// paneAt is the pane drawn at a point.
func (m *Model) paneAt(pt image.Point) (focus, bool) {
	l := m.layout
	if l.tabbed {
		return m.focus, pt.In(l.main)
	}
	switch {
	case pt.In(l.log):
		return focusLog, true
	case pt.In(l.caps):
		return focusCaps, true
	case pt.In(l.tools):
		return m.explorer, true
	}
	return 0, false
}

// inModal makes a click's position relative to the overlay's top left
// cell, which is how the panes drawn there (the forms) read it.
func inModal(click tea.MouseClickMsg, r image.Rectangle) tea.MouseClickMsg {
	mouse := click.Mouse()
	mouse.X -= r.Min.X
	mouse.Y -= r.Min.Y
	return tea.MouseClickMsg(mouse)
}
