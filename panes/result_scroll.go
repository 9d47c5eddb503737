package panes

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
)

// scrollKeys moves a view of n lines shown rows at a time with the Result
// key group; it reports whether the key was a scroll key.
func scrollKeys(k keymap.Result, msg tea.Msg, top *int, n, rows int) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Up):
			*top--
		case key.Matches(msg, k.Down):
			*top++
		case key.Matches(msg, k.PageUp):
			*top -= max(rows-1, 1)
		case key.Matches(msg, k.PageDown):
			*top += max(rows-1, 1)
		case key.Matches(msg, k.Top):
			*top = 0
		case key.Matches(msg, k.Bottom):
			*top = n
		default:
			return false
		}
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			*top -= 3
		case tea.MouseWheelDown:
			*top += 3
		default:
			return false
		}
	default:
		return false
	}
	*top = max(0, min(*top, n-rows))
	return true
}
