package ui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/themes"
)

// pickerModel is the small program that runs before the debugger when a
// config file names several servers and --server does not choose one, or
// when `mcpscope taps` lists the taps.
type pickerModel struct {
	theme  *themes.Theme
	pinned bool // --theme or NO_COLOR fixed the theme
	picker *panes.Picker
	help   help.Model
	w, h   int
	choice int
	chosen panes.PickerItem
	// load, when set, lists the items again every refreshEvery, in a Cmd.
	load func() ([]panes.PickerItem, error)
}

// refreshEvery is how often a live picker lists its items again: soon
// enough that a server a client just started shows at once.
const refreshEvery = time.Second

type (
	refreshMsg struct{}
	itemsMsg   struct {
		items []panes.PickerItem
		err   error
	}
)

// PickServer shows the servers of a config file and returns the index the
// user chose, or -1 when they quit. theme is "auto", "dark" or "light".
func PickServer(ctx context.Context, title string, items []panes.PickerItem, theme string, noColor bool) (int, error) {
	m := newPicker(title, items, theme, noColor)
	if err := m.run(ctx); err != nil {
		return -1, err
	}
	return m.choice, nil
}

// PickLive is PickServer over a list that changes while it is shown (the
// taps, which clients start and stop): load lists the items again every
// second, off the program's loop, and the cursor stays on its item (by
// Key). empty is what the picker says while the list is empty. It returns
// the chosen item, and false when the user quit.
func PickLive(ctx context.Context, title, empty string, items []panes.PickerItem, load func() ([]panes.PickerItem, error), theme string, noColor bool) (panes.PickerItem, bool, error) {
	m := newPicker(title, items, theme, noColor)
	m.picker.Empty = empty
	m.load = load
	if err := m.run(ctx); err != nil {
		return panes.PickerItem{}, false, err
	}
	return m.chosen, m.choice >= 0, nil
}

func newPicker(title string, items []panes.PickerItem, theme string, noColor bool) *pickerModel {
	m := &pickerModel{choice: -1, w: 80, h: 24}
	switch {
	case noColor:
		m.theme, m.pinned = themes.NoColor(), true
	case theme == "light":
		m.theme, m.pinned = themes.Light(), true
	case theme == "dark":
		m.theme, m.pinned = themes.Dark(), true
	default:
		m.theme = themes.Dark()
	}
	m.picker = panes.NewPicker(m.theme, keymap.Default(), title, items)
	m.help = help.New()
	m.help.Styles = m.theme.Help
	return m
}

func (m *pickerModel) run(ctx context.Context) error {
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("server picker: %w", err)
	}
	return nil
}

func (m *pickerModel) Init() tea.Cmd {
	var cmds []tea.Cmd
	if !m.pinned {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.load != nil {
		cmds = append(cmds, refreshLater())
	}
	return tea.Batch(cmds...)
}

func refreshLater() tea.Cmd {
	return tea.Tick(refreshEvery, func(time.Time) tea.Msg { return refreshMsg{} })
}

func (m *pickerModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		if !m.pinned {
			m.theme = themes.Default(msg.IsDark())
			m.picker.SetTheme(m.theme)
			m.help.Styles = m.theme.Help
		}
	case refreshMsg:
		load := m.load
		return m, func() tea.Msg {
			items, err := load()
			return itemsMsg{items, err}
		}
	case itemsMsg:
		// A list that could not be read keeps the last one shown.
		if msg.err == nil {
			m.picker.SetItems(msg.items)
		}
		return m, refreshLater()
	case panes.PickedMsg:
		m.choice, m.chosen = msg.Index, msg.Item
		return m, tea.Quit
	case tea.KeyPressMsg:
		return m, m.picker.Update(msg)
	}
	return m, nil
}

func (m *pickerModel) View() tea.View {
	helpLine := m.help.ShortHelpView(m.picker.ShortHelp())
	m.picker.SetSize(m.w, max(3, m.h-1))
	v := tea.NewView(lipgloss.JoinVertical(lipgloss.Left, m.picker.View(), helpLine))
	v.AltScreen = true
	v.WindowTitle = "mcpscope · choose a server"
	return v
}
