package ui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/panes"
	"github.com/mcpscope/mcpscope/themes"
)

// pickerModel is the small program that runs before the debugger when a
// config file names several servers and --server does not choose one.
type pickerModel struct {
	theme  *themes.Theme
	pinned bool // --theme or NO_COLOR fixed the theme
	picker *panes.Picker
	help   help.Model
	w, h   int
	choice int
}

// PickServer shows the servers of a config file and returns the index the
// user chose, or -1 when they quit. theme is "auto", "dark" or "light".
func PickServer(ctx context.Context, title string, items []panes.PickerItem, theme string, noColor bool) (int, error) {
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
	if _, err := tea.NewProgram(m, tea.WithContext(ctx)).Run(); err != nil && ctx.Err() == nil {
		return -1, fmt.Errorf("server picker: %w", err)
	}
	return m.choice, nil
}

func (m *pickerModel) Init() tea.Cmd {
	if m.pinned {
		return nil
	}
	return tea.RequestBackgroundColor
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
	case panes.PickedMsg:
		m.choice = msg.Index
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
