// Package keymap holds every key binding of the terminal UI in one KeyMap,
// grouped by the pane that uses it. Panes match keys with key.Matches against
// these bindings and show their help text in the help bar, so a binding
// changed here changes both the behaviour and the help.
package keymap

import "charm.land/bubbles/v2/key"

// Global keys work whatever pane has focus (unless a text input is active).
type Global struct {
	Quit      key.Binding
	Help      key.Binding
	NextPane  key.Binding
	PrevPane  key.Binding
	Reconnect key.Binding
	Back      key.Binding
	Handshake key.Binding
	// Split moves the wide layout's split between the log and the right
	// column: < widens the right column, > the log.
	Split key.Binding
	// LiveSession opens a separate live session on the server a read-only
	// view watches (a tap): the view comes back when it ends.
	LiveSession key.Binding
}

// Log keys drive the message log.
type Log struct {
	Up           key.Binding
	Down         key.Binding
	PageUp       key.Binding
	PageDown     key.Binding
	Top          key.Binding
	Bottom       key.Binding
	Follow       key.Binding
	Filter       key.Binding
	Open         key.Binding
	ToggleStderr key.Binding
	// ToggleTransport hides or shows the transport rows (HTTP exchanges,
	// SSE events, reconnects, OAuth steps).
	ToggleTransport key.Binding
	// Pairs switches between one row per frame and one row per exchange
	// (a request with its answer).
	Pairs       key.Binding
	ClearFilter key.Binding
	ApplyFilter key.Binding
}

// Detail keys drive the frame detail view.
type Detail struct {
	Up        key.Binding
	Down      key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	ToggleRaw key.Binding
	Paired    key.Binding
	Copy      key.Binding
	// Preview opens the view of the tools/call shown (its request or its
	// response), built from what the log holds: a tap's capture has no
	// result view of its own to press the Result pane's preview key on.
	Preview key.Binding
	Close   key.Binding
}

// Caps keys drive the capabilities tree.
type Caps struct {
	Up       key.Binding
	Down     key.Binding
	Toggle   key.Binding // expand or collapse the node under the cursor
	Expand   key.Binding
	Collapse key.Binding
}

// Tools keys drive the tools list.
type Tools struct {
	Up      key.Binding
	Down    key.Binding
	Filter  key.Binding
	Open    key.Binding
	Details key.Binding
	// ScrollUp and ScrollDown page the selected tool's details (the list
	// pages with Scroll's pgup and pgdn); DetailUp and DetailDown move
	// them a line. Scroll's Left, Right and Wrap act on the details too.
	ScrollUp   key.Binding
	ScrollDown key.Binding
	DetailUp   key.Binding
	DetailDown key.Binding
	// ViewAs opens the client picker: the list as Claude, ChatGPT, VS
	// Code or Cursor presents it; ViewChoose and ViewCancel answer it
	// (the form's PrevOption and NextOption move it). SortCost lists
	// the costliest tools first, and back.
	ViewAs     key.Binding
	ViewChoose key.Binding
	ViewCancel key.Binding
	SortCost   key.Binding
}

// JSONEdit keys drive the tool-arguments editor. KeepDraft, Discard and
// Back answer the question esc asks when the text was changed, as the
// form's do.
type JSONEdit struct {
	Send      key.Binding // send; a second press sends arguments that do not validate
	Close     key.Binding // close; asks first when the text was changed
	KeepDraft key.Binding // close, keeping the text for next time
	Discard   key.Binding // close, throwing the changes away
	Back      key.Binding // back to the editor
}

// Form keys drive the schema form (package panes/form). A text field is
// edited as soon as the cursor is on it, so every key that types text
// types there: the form's commands sit on ctrl and alt keys (the plain
// letters given as second keys work only on rows that take no text), and
// tab, shift+tab, enter and esc. Keep, Discard and Back answer the question
// esc asks when the form holds changes.
type Form struct {
	Next        key.Binding // next field
	Prev        key.Binding // previous field
	Edit        key.Binding // edit a text field, toggle a boolean or option, open a group
	PrevOption  key.Binding // previous enum value or oneOf branch
	NextOption  key.Binding // next enum value or oneOf branch
	Send        key.Binding // send; refused while the value does not validate
	SendAnyway  key.Binding // send even though the value does not validate
	Raw         key.Binding // raw JSON view of the same value
	Editor      key.Binding // edit the JSON in $EDITOR
	Add         key.Binding // add an array item or a key/value row
	Delete      key.Binding // delete the array item or row under the cursor
	MoveUp      key.Binding // move an array item up
	MoveDown    key.Binding // move an array item down
	Branch      key.Binding // switch the enclosing oneOf/anyOf branch
	Presence    key.Binding // cycle an optional field: omitted, empty, null
	HistoryPrev key.Binding // earlier arguments
	HistoryNext key.Binding // later arguments
	Collapse    key.Binding // collapse or expand the enclosing group
	Example     key.Binding // fill in the schema's next example
	PageUp      key.Binding
	PageDown    key.Binding
	Close       key.Binding // close; asks first when the form holds changes
	KeepDraft   key.Binding // close, keeping the draft for next time
	Discard     key.Binding // close, throwing the changes away
	Back        key.Binding // back to the form
}

// Result keys drive the tool-call result view.
type Result struct {
	Up        key.Binding
	Down      key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding
	Copy      key.Binding
	Raw       key.Binding // show the response frame's bytes instead of the parsed result
	Close     key.Binding
	Save      key.Binding // write the whole result (raw JSON) to a file
	SaveMedia key.Binding // write image, audio and blob contents to files
	Open      key.Binding // read the next resource_link / embedded resource, or open the next image or audio block
	// Markdown shows the Markdown in a view as its source, or rendered
	// again: the result, a resource or prompt read, a tool's details.
	Markdown key.Binding
	Preview  key.Binding // open the tool's view (MCP Apps, ChatGPT skybridge) in the browser
}

// Scroll keys move every scrolling view and list drawn by package
// panes/list: the server log, the help overlay, the frame detail, the
// result and content views. Left and Right scroll long lines sideways
// while Wrap is off; Wrap folds them to the width instead.
type Scroll struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Left     key.Binding
	Right    key.Binding
	Wrap     key.Binding
}

// ForTree is the scroll keys for a tree (capabilities, diagnostics), whose
// ← and → fold and unfold a node: long lines scroll sideways with
// shift+← and shift+→ there instead.
func (s Scroll) ForTree() Scroll {
	s.Left = bind(k("shift+left"), "⇧←/→", "sideways")
	s.Right = bind(k("shift+right"), "⇧→", "scroll right")
	return s
}

// Picker keys drive the server picker shown when a config file names
// several servers and --server does not pick one.
type Picker struct {
	Up     key.Binding
	Down   key.Binding
	Choose key.Binding
	Quit   key.Binding
}

// KeyMap is every binding of the UI.
type KeyMap struct {
	Global   Global
	Log      Log
	Detail   Detail
	Caps     Caps
	Tools    Tools
	Result   Result
	JSONEdit JSONEdit
	Form     Form
	Picker   Picker
	Scroll   Scroll
	Explore  Explore // resources, prompts, server log, activity, roots, server requests
	Diag     Diagnostics
	Calls    Calls // saved calls (the calls file)
}

func bind(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

func k(keys ...string) []string { return keys }

// Default returns mcpscope's default bindings. It is a function, not a
// package variable, so no caller can change the defaults for another.
func Default() KeyMap {
	var m KeyMap
	m.Global = Global{
		Quit:        bind(k("q", "ctrl+c"), "q", "quit"),
		Help:        bind(k("?"), "?", "help"),
		NextPane:    bind(k("tab"), "tab", "next pane"),
		PrevPane:    bind(k("shift+tab"), "shift+tab", "prev pane"),
		Reconnect:   bind(k("r"), "r", "reconnect"),
		Back:        bind(k("esc"), "esc", "back"),
		Handshake:   bind(k("H"), "H", "handshake"),
		Split:       bind(k("<", ">"), "</>", "move split"),
		LiveSession: bind(k("L"), "L", "live session"),
	}
	m.Log = Log{
		Up:              bind(k("up", "k"), "↑/k", "up"),
		Down:            bind(k("down", "j"), "↓/j", "down"),
		PageUp:          bind(k("pgup", "ctrl+u"), "pgup", "page up"),
		PageDown:        bind(k("pgdown", "ctrl+d"), "pgdn", "page down"),
		Top:             bind(k("g", "home"), "g", "top"),
		Bottom:          bind(k("G", "end"), "G", "bottom"),
		Follow:          bind(k("f"), "f", "follow"),
		Filter:          bind(k("/"), "/", "filter"),
		Open:            bind(k("enter"), "enter", "open"),
		ToggleStderr:    bind(k("s"), "s", "stderr"),
		ToggleTransport: bind(k("t"), "t", "transport rows"),
		Pairs:           bind(k("x"), "x", "exchanges/frames"),
		ClearFilter:     bind(k("esc"), "esc", "clear filter"),
		ApplyFilter:     bind(k("enter"), "enter", "apply"),
	}
	m.Detail = Detail{
		Up:        bind(k("up", "k"), "↑/k", "up"),
		Down:      bind(k("down", "j"), "↓/j", "down"),
		PageUp:    bind(k("pgup", "ctrl+u", "b"), "pgup", "page up"),
		PageDown:  bind(k("pgdown", "ctrl+d", "space"), "pgdn", "page down"),
		Top:       bind(k("g", "home"), "g", "top"),
		Bottom:    bind(k("G", "end"), "G", "bottom"),
		ToggleRaw: bind(k("v"), "v", "raw/pretty"),
		Paired:    bind(k("p"), "p", "paired frame"),
		Copy:      bind(k("c"), "c", "copy"),
		Preview:   bind(k("P"), "P", "preview view"),
		Close:     bind(k("esc"), "esc", "close"),
	}
	m.Caps = Caps{
		Up:       bind(k("up", "k"), "↑/k", "up"),
		Down:     bind(k("down", "j"), "↓/j", "down"),
		Toggle:   bind(k("enter", "space"), "enter", "expand/collapse"),
		Expand:   bind(k("right", "l"), "→", "expand"),
		Collapse: bind(k("left", "h"), "←", "collapse"),
	}
	m.Picker = Picker{
		Up:     bind(k("up", "k"), "↑/k", "up"),
		Down:   bind(k("down", "j"), "↓/j", "down"),
		Choose: bind(k("enter"), "enter", "connect"),
		Quit:   bind(k("q", "esc", "ctrl+c"), "q", "quit"),
	}
	m.Tools = Tools{
		Up:         bind(k("up", "k"), "↑/k", "up"),
		Down:       bind(k("down", "j"), "↓/j", "down"),
		Filter:     bind(k("/"), "/", "filter"),
		Open:       bind(k("enter"), "enter", "call"),
		Details:    bind(k("d"), "d", "details"),
		ScrollUp:   bind(k("ctrl+u"), "ctrl+u", "details page up"),
		ScrollDown: bind(k("ctrl+d"), "ctrl+u/d", "scroll details"),
		DetailUp:   bind(k("K"), "K", "details line up"),
		DetailDown: bind(k("J"), "J", "details line down"),
		ViewAs:     bind(k("v"), "v", "as client"),
		ViewChoose: bind(k("enter"), "enter", "show view"),
		ViewCancel: bind(k("esc"), "esc", "cancel"),
		SortCost:   bind(k("$"), "$", "sort by tokens"),
	}
	m.JSONEdit = JSONEdit{
		Send:      bind(k("ctrl+s"), "ctrl+s", "send"),
		Close:     bind(k("esc"), "esc", "close"),
		KeepDraft: bind(k("k", "enter"), "k", "keep draft"),
		Discard:   bind(k("d"), "d", "discard"),
		Back:      bind(k("esc", "b"), "esc", "back to editor"),
	}
	m.Form = Form{
		Next:        bind(k("tab", "down"), "tab/↓", "next field"),
		Prev:        bind(k("shift+tab", "up"), "shift+tab/↑", "prev field"),
		Edit:        bind(k("enter", "space"), "enter", "toggle/open"),
		PrevOption:  bind(k("left"), "←", "prev choice"),
		NextOption:  bind(k("right"), "→", "next choice"),
		Send:        bind(k("ctrl+s"), "ctrl+s", "send"),
		SendAnyway:  bind(k("ctrl+f"), "ctrl+f", "send anyway"),
		Raw:         bind(k("ctrl+e"), "ctrl+e", "raw JSON"),
		Editor:      bind(k("ctrl+o"), "ctrl+o", "$EDITOR"),
		Add:         bind(k("alt+a"), "alt+a", "add item"),
		Delete:      bind(k("alt+d"), "alt+d", "delete item"),
		MoveUp:      bind(k("alt+up"), "alt+↑", "move up"),
		MoveDown:    bind(k("alt+down"), "alt+↓", "move down"),
		Branch:      bind(k("alt+o"), "alt+o", "oneOf branch"),
		Presence:    bind(k("alt+n"), "alt+n", "omit/empty/null"),
		HistoryPrev: bind(k("ctrl+p"), "ctrl+p", "older args"),
		HistoryNext: bind(k("ctrl+n"), "ctrl+n", "newer args"),
		Collapse:    bind(k("alt+c"), "alt+c", "collapse"),
		Example:     bind(k("alt+e"), "alt+e", "use example"),
		PageUp:      bind(k("pgup"), "pgup", "page up"),
		PageDown:    bind(k("pgdown"), "pgdn", "page down"),
		Close:       bind(k("esc"), "esc", "close"),
		KeepDraft:   bind(k("k", "enter"), "k", "keep draft"),
		Discard:     bind(k("d"), "d", "discard"),
		Back:        bind(k("esc", "b"), "esc", "back to form"),
	}
	m.Result = Result{
		Up:        bind(k("up", "k"), "↑/k", "up"),
		Down:      bind(k("down", "j"), "↓/j", "down"),
		PageUp:    bind(k("pgup", "ctrl+u"), "pgup", "page up"),
		PageDown:  bind(k("pgdown", "ctrl+d"), "pgdn", "page down"),
		Top:       bind(k("g", "home"), "g", "top"),
		Bottom:    bind(k("G", "end"), "G", "bottom"),
		Copy:      bind(k("c"), "c", "copy"),
		Raw:       bind(k("v"), "v", "raw response"),
		Save:      bind(k("s"), "s", "save result"),
		SaveMedia: bind(k("w"), "w", "write media"),
		Open:      bind(k("o"), "o", "open resource/media"),
		Markdown:  bind(k("m"), "m", "Markdown source"),
		Preview:   bind(k("p"), "p", "preview view"),
		Close:     bind(k("esc"), "esc", "close"),
	}
	m.Scroll = Scroll{
		Up:       bind(k("up", "k"), "↑/k", "up"),
		Down:     bind(k("down", "j"), "↓/j", "down"),
		PageUp:   bind(k("pgup", "ctrl+u"), "pgup", "page up"),
		PageDown: bind(k("pgdown", "ctrl+d"), "pgdn", "page down"),
		Top:      bind(k("g", "home"), "g", "top"),
		Bottom:   bind(k("G", "end"), "G", "bottom"),
		// One help entry names both directions: the bar stays short.
		Left:  bind(k("left"), "←/→", "sideways"),
		Right: bind(k("right"), "→", "scroll right"),
		Wrap:  bind(k("W"), "W", "wrap"),
	}
	m.Explore = defaultExplore()
	m.Diag = defaultDiagnostics()
	m.Calls = defaultCalls()
	return m
}
