package ui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/panes"
)

// A live picker (the taps) lists its items again in a Cmd, never in
// Update, shows what the new list holds, keeps the last list when one
// cannot be read, and asks for the next refresh each time; the item
// chosen is reported as it was when chosen.
func TestLivePickerRefreshesOffTheLoop(t *testing.T) {
	lists := [][]panes.PickerItem{
		{{Name: "claude", Kind: "live", Detail: "pid 7", Key: "t2"}, {Name: "claude", Kind: "ended", Detail: "old", Key: "t1"}},
	}
	var loads int
	var fail error
	m := newPicker("Taps", nil, "dark", false)
	m.picker.Empty = "No taps yet: waiting for one."
	m.load = func() ([]panes.PickerItem, error) {
		loads++
		if fail != nil {
			return nil, fail
		}
		return lists[0], nil
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "No taps yet: waiting for one.") {
		t.Fatalf("the empty picker:\n%s", v)
	}
	refresh := func() tea.Cmd {
		_, cmd := m.Update(refreshMsg{})
		if loads != 0 || cmd == nil {
			t.Fatalf("Update listed the items itself (%d loads) or gave no Cmd", loads)
		}
		msg := cmd()
		loads = 0
		_, next := m.Update(msg)
		return next
	}
	if next := refresh(); next == nil {
		t.Error("no next refresh was asked for")
	}
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "pid 7") || !strings.Contains(v, "2 servers") {
		t.Fatalf("the refreshed list is not shown:\n%s", v)
	}
	fail = errors.New("unreadable")
	if next := refresh(); next == nil {
		t.Error("a failed list stopped the refreshes")
	}
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "pid 7") {
		t.Fatalf("a failed list emptied the picker:\n%s", v)
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(cmd())
	if m.chosen.Key != "t2" || m.choice != 0 {
		t.Errorf("chose %+v (index %d), want the live tap t2", m.chosen, m.choice)
	}
}
