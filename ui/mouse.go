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
		if p := m.modalPane(); p != nil {
			if _, wheel := msg.(tea.MouseWheelMsg); wheel {
				return p.Update(msg)
			}
		}
		if _, click := msg.(tea.MouseClickMsg); click && !pt.In(l.modal) {
			m.closeModal()
			m.modal = modalNone
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
