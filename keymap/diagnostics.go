package keymap

import "charm.land/bubbles/v2/key"

// Diagnostics keys drive the protocol doctor's pane: rules with their
// counts, each expandable to the occurrences, each one key away from its
// frame.
type Diagnostics struct {
	Up       key.Binding
	Down     key.Binding
	Open     key.Binding // expand a rule, or jump to an occurrence's frame
	Expand   key.Binding
	Collapse key.Binding
	PageUp   key.Binding // scroll the explanation of the selected row
	PageDown key.Binding
}

func defaultDiagnostics() Diagnostics {
	return Diagnostics{
		Up:       bind(k("up", "k"), "↑/k", "up"),
		Down:     bind(k("down", "j"), "↓/j", "down"),
		Open:     bind(k("enter"), "enter", "expand/go to frame"),
		Expand:   bind(k("right", "l"), "→", "expand"),
		Collapse: bind(k("left", "h"), "←", "collapse"),
		PageUp:   bind(k("pgup", "ctrl+u"), "pgup", "scroll why/fix"),
		PageDown: bind(k("pgdown", "ctrl+d"), "pgdn", "scroll why/fix"),
	}
}
