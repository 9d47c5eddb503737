package keymap

import "charm.land/bubbles/v2/key"

// Explore holds the keys of the protocol-explorer panes (resources,
// prompts, server log, activity, roots) and of the modal that answers the
// server's requests. They live in one group so that these panes, which
// came together, extend the KeyMap in one place.
type Explore struct {
	// Global-level additions: they work from any pane that is not
	// capturing text.
	Ping   key.Binding // ping the server and show the round trip
	Cancel key.Binding // cancel the newest request still in flight
	Jump   key.Binding // 1-9: jump to a pane

	// List panes (resources, prompts, activity, roots, server log).
	Up       key.Binding
	Down     key.Binding
	Open     key.Binding // read a resource, fill a template, fill a prompt's arguments
	More     key.Binding // load the next page
	Refresh  key.Binding // list again
	Anyway   key.Binding // send although the capability is missing
	Section  key.Binding // switch resources / templates
	Sub      key.Binding // subscribe or unsubscribe
	Save     key.Binding // save the last blob to a file
	Level    key.Binding // pick the logging level
	CancelOp key.Binding // cancel the selected request
	TaskRes  key.Binding // fetch a task's result
	Add      key.Binding // add a root
	Delete   key.Binding // delete a root
	Clear    key.Binding // clear the server log
	Info     key.Binding // a prompt's or a resource's details, whole

	// Forms (prompt arguments, template variables, elicitation, sampling).
	NextField  key.Binding
	PrevField  key.Binding
	Complete   key.Binding // take the highlighted completion suggestion
	Suggest    key.Binding // next suggestion
	Toggle     key.Binding // toggle a boolean or a multi-select option
	PrevChoice key.Binding
	NextChoice key.Binding
	Submit     key.Binding // send / accept
	Decline    key.Binding
	Back       key.Binding // cancel / close
	OpenURL    key.Binding // open a URL elicitation's page in the browser
	StopReason key.Binding // cycle the sampling stop reason
	Canned     key.Binding // cycle canned sampling replies
}

func defaultExplore() Explore {
	return Explore{
		Ping:   bind(k("P"), "P", "ping"),
		Cancel: bind(k("X"), "X", "cancel request"),
		Jump:   bind(k("1", "2", "3", "4", "5", "6", "7", "8", "9"), "1-9", "go to pane"),

		Up:       bind(k("up", "k"), "↑/k", "up"),
		Down:     bind(k("down", "j"), "↓/j", "down"),
		Open:     bind(k("enter"), "enter", "open"),
		More:     bind(k("m"), "m", "load more"),
		Refresh:  bind(k("R"), "R", "list again"),
		Anyway:   bind(k("A"), "A", "send anyway"),
		Section:  bind(k("t"), "t", "resources/templates"),
		Sub:      bind(k("s"), "s", "subscribe"),
		Save:     bind(k("w"), "w", "save blob"),
		Level:    bind(k("l"), "l", "log level"),
		CancelOp: bind(k("x"), "x", "cancel"),
		TaskRes:  bind(k("o"), "o", "task result"),
		Add:      bind(k("a"), "a", "add root"),
		Delete:   bind(k("d"), "d", "delete root"),
		Clear:    bind(k("c"), "c", "clear"),
		Info:     bind(k("i"), "i", "details"),

		NextField:  bind(k("down", "tab"), "tab/↓", "next field"),
		PrevField:  bind(k("up", "shift+tab"), "↑", "prev field"),
		Complete:   bind(k("ctrl+y"), "ctrl+y", "take suggestion"),
		Suggest:    bind(k("ctrl+n"), "ctrl+n", "next suggestion"),
		Toggle:     bind(k("space"), "space", "toggle"),
		PrevChoice: bind(k("left"), "←", "prev choice"),
		NextChoice: bind(k("right"), "→", "next choice"),
		Submit:     bind(k("ctrl+s"), "ctrl+s", "send/accept"),
		Decline:    bind(k("ctrl+d"), "ctrl+d", "decline"),
		Back:       bind(k("esc"), "esc", "cancel"),
		OpenURL:    bind(k("ctrl+o"), "ctrl+o", "open in browser"),
		StopReason: bind(k("ctrl+t"), "ctrl+t", "stop reason"),
		Canned:     bind(k("ctrl+r"), "ctrl+r", "canned reply"),
	}
}
