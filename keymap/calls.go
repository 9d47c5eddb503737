package keymap

import "charm.land/bubbles/v2/key"

// Calls holds the keys of the saved calls (the calls file): saving a call
// from its result, the calls listed under their tool in the tools pane,
// and the list of every saved call.
type Calls struct {
	// Save, on a result, saves the call that gave it (a name is asked).
	Save key.Binding
	// List opens the list of every saved call, from any pane that is not
	// capturing text.
	List key.Binding
	// Run runs the selected saved call (on a tool, its saved calls) and
	// checks its answer; RunAll runs every saved call in order.
	Run    key.Binding
	RunAll key.Binding
	// Load puts the selected call's arguments into its tool's form, as a
	// draft to change and send.
	Load  key.Binding
	Up    key.Binding
	Down  key.Binding
	Close key.Binding

	// The question Save asks: the name, typed; Confirm saves, Snapshot
	// chooses whether the answer shown is kept as the call's snapshot,
	// Cancel saves nothing.
	Confirm  key.Binding
	Snapshot key.Binding
	Cancel   key.Binding
}

func defaultCalls() Calls {
	return Calls{
		Save:   bind(k("S"), "S", "save call"),
		List:   bind(k("C"), "C", "saved calls"),
		Run:    bind(k("t"), "t", "run saved call"),
		RunAll: bind(k("T"), "T", "run all saved"),
		Load:   bind(k("enter"), "enter", "load into form"),
		Up:     bind(k("up", "k"), "↑/k", "up"),
		Down:   bind(k("down", "j"), "↓/j", "down"),
		Close:  bind(k("esc"), "esc", "close"),

		Confirm:  bind(k("enter"), "enter", "save"),
		Snapshot: bind(k("tab"), "tab", "snapshot on/off"),
		Cancel:   bind(k("esc"), "esc", "cancel"),
	}
}
