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
	PageUp   key.Binding
	PageDown key.Binding
	// ExplainUp and ExplainDown scroll the explanation of the selected row.
	ExplainUp   key.Binding
	ExplainDown key.Binding
}

func defaultDiagnostics() Diagnostics {
	return Diagnostics{
		Up:       bind(k("up", "k"), "↑/k", "up"),
		Down:     bind(k("down", "j"), "↓/j", "down"),
		Open:     bind(k("enter"), "enter", "expand/go to frame"),
		Expand:   bind(k("right", "l"), "→", "expand"),
		Collapse: bind(k("left", "h"), "←", "collapse"),
		PageUp:   bind(k("pgup", "ctrl+u"), "pgup", "page up"),
		PageDown: bind(k("pgdown", "ctrl+d"), "pgdn", "page down"),
		// PgUp/PgDn page the list, as in every list; the explanation
		// below it scrolls with the bracket keys.
		ExplainUp:   bind(k("["), "[", "scroll why/fix up"),
		ExplainDown: bind(k("]"), "]", "scroll why/fix"),
	}
}
