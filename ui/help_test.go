package ui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// At 60×15 the help overlay does not hold every key: it scrolls (keys and
// wheel), says where it is, and every key of the pane and the global keys
// can be reached; nothing is cut with an ellipsis.
func TestHelpScrollsAt60x15(t *testing.T) {
	m := newTestModel("dark", 60, 15)
	feed(m, sessionEvents())
	press(m, "?")
	if m.modal != modalHelp {
		t.Fatal("? did not open the help")
	}
	seen := map[string]bool{}
	collect := func() string {
		s := ansi.Strip(content(m))
		requireScreen(t, content(m), 60, 15)
		lines := strings.Split(s, "\n")
		for _, l := range lines[m.layout.modal.Min.Y:m.layout.modal.Max.Y] {
			seen[strings.Join(strings.Fields(strings.Trim(l, "│")), " ")] = true
		}
		return s
	}
	first := collect()
	if !strings.Contains(first, "of ") {
		t.Fatalf("no position indicator:\n%s", first)
	}
	for range 40 {
		press(m, "j")
		collect()
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp, X: 30, Y: 7})
	if s := collect(); s == first {
		t.Fatalf("the help did not scroll back with the wheel")
	}
	press(m, "g")
	if s := collect(); s != first {
		t.Fatalf("g did not go back to the top:\n%s", s)
	}
	all := strings.Join(keysOf(m.FullHelp()), "\n")
	for _, want := range strings.Split(all, "\n") {
		found := false
		for l := range seen {
			if strings.Contains(l, want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%q never shown in the help", want)
		}
	}
	for l := range seen {
		if strings.Contains(l, "…") {
			t.Errorf("a help row is cut: %q", l)
		}
	}
	press(m, "esc")
	if m.modal != modalNone {
		t.Fatal("esc did not close the help")
	}
}

func keysOf(groups [][]key.Binding) []string {
	var out []string
	for _, g := range groups {
		for _, b := range g {
			if b.Enabled() {
				out = append(out, b.Help().Key+" "+b.Help().Desc)
			}
		}
	}
	return out
}
