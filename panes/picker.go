package panes

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// PickerItem is one server the picker offers.
type PickerItem struct {
	Name   string // the server's name in the config file
	Kind   string // "stdio", "http", "sse"
	Detail string // the command line or URL
	// Key names the item across refreshes of a list that changes while it
	// is shown (a tap's ID): the cursor stays on it (SetItems).
	Key string
}

// PickedMsg reports the user's choice: an index into the items, or -1 when
// they quit without choosing.
type PickedMsg struct {
	Index int
	Item  PickerItem // the item chosen, as it was when chosen
}

// Picker lists the servers of a config file and lets the user choose one.
// Config files are the user's own, but their strings still go through
// termsafe: a config can be someone else's, copied from a README.
type Picker struct {
	theme   *themes.Theme
	keys    keymap.Picker
	title   string
	items   []PickerItem
	cursor  int
	w, h    int
	focused bool
	moved   bool // the user moved the cursor
	// Empty, when set, is what the picker says while it has no items (a
	// list that is refreshed and may fill).
	Empty string
}

// NewPicker makes a picker over items with the given title (the file name).
func NewPicker(t *themes.Theme, k keymap.KeyMap, title string, items []PickerItem) *Picker {
	return &Picker{theme: t, keys: k.Picker, title: title, items: items, focused: true}
}

func (p *Picker) SetSize(w, h int) { p.w, p.h = w, h }

// SetTheme switches the theme (the terminal's background became known).
func (p *Picker) SetTheme(t *themes.Theme) { p.theme = t }
func (p *Picker) Focus()                   { p.focused = true }
func (p *Picker) Blur()                    { p.focused = false }
func (p *Picker) Title() string            { return p.title }

// SetItems replaces the items with a fresh list of the same things. Once
// the user has moved the cursor it stays on their item (by Key) while that
// is listed; before, it stays on the first row, where a list ordered
// newest first puts what just came.
func (p *Picker) SetItems(items []PickerItem) {
	at := ""
	if p.moved && p.cursor < len(p.items) {
		at = p.items[p.cursor].Key
	}
	p.items = items
	p.cursor = min(p.cursor, max(len(items)-1, 0))
	for i, it := range items {
		if at != "" && it.Key == at {
			p.cursor = i
		}
	}
}

// Selected is the index under the cursor.
func (p *Picker) Selected() int { return p.cursor }

func (p *Picker) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Up, p.keys.Down, p.keys.Choose, p.keys.Quit}
}

func (p *Picker) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Update moves the cursor and reports the choice as a PickedMsg.
func (p *Picker) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, p.keys.Up):
		if p.cursor > 0 {
			p.cursor--
			p.moved = true
		}
	case key.Matches(km, p.keys.Down):
		if p.cursor < len(p.items)-1 {
			p.cursor++
			p.moved = true
		}
	case key.Matches(km, p.keys.Choose):
		if len(p.items) > 0 {
			i, it := p.cursor, p.items[p.cursor]
			return func() tea.Msg { return PickedMsg{Index: i, Item: it} }
		}
	case key.Matches(km, p.keys.Quit):
		return func() tea.Msg { return PickedMsg{Index: -1} }
	}
	return nil
}

// View lists the servers, two lines each, scrolled to keep the cursor shown.
func (p *Picker) View() string {
	inner := p.h - 2
	body := []string{p.theme.Detail.Hint.Render(plural.S(len(p.items), "server") + ": choose one to debug"), ""}
	if len(p.items) == 0 && p.Empty != "" {
		body = append(body[:0], foldLine(p.theme.Detail.Hint.Render(termsafe.String(p.Empty)), max(p.w-2, 0), 0)...)
	}
	rows := (inner - len(body)) / 2
	if rows < 1 {
		rows = 1
	}
	first := 0
	if p.cursor >= rows {
		first = p.cursor - rows + 1
	}
	for i := first; i < len(p.items) && i < first+rows; i++ {
		it := p.items[i]
		name := p.theme.Tools.Name.Render(termsafe.String(it.Name)) + "  " + p.theme.Tools.Badge.Render(termsafe.String(it.Kind))
		detail := "    " + p.theme.Tools.Description.Render(termsafe.String(it.Detail))
		marker := "  "
		if i == p.cursor {
			marker = "▸ "
			name = p.theme.Tools.Selected.Render(marker + name)
		} else {
			name = marker + name
		}
		body = append(body, name, detail)
	}
	return Box(p.theme, p.title, p.focused, p.w, p.h, body)
}
