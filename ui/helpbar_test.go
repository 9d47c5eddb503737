package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
)

// A key is offered once in a help bar: the handshake listed esc as both
// "esc close" and "esc back". Every pane and every overlay is checked.
func TestHelpBarListsEachKeyOnce(t *testing.T) {
	check := func(where string, m *Model) {
		t.Helper()
		seen := map[string]string{}
		for _, b := range m.helpBindings() {
			for _, k := range b.Keys() {
				if prev, ok := seen[k]; ok {
					t.Errorf("%s: %q is in the help bar twice (%q and %q)", where, k, prev, b.Help().Key+" "+b.Help().Desc)
				}
				seen[k] = b.Help().Key + " " + b.Help().Desc
			}
		}
	}
	for _, c := range modalCases {
		m := newTestModel("dark", 80, 24)
		feed(m, sessionEvents())
		c.open(t, m)
		check(c.name, m)
	}
	for f := focus(0); f < numFocus; f++ {
		m := newTestModel("dark", 80, 24)
		feed(m, sessionEvents())
		m.setFocus(f)
		check(f.String(), m)
	}
}

// At 60×15 the help bar folds to one row ending in "? help", so the panes
// keep their rows; at 80×24 every key still shows.
func TestHelpBarFoldsOnASmallScreen(t *testing.T) {
	m := newTestModel("dark", 60, 15)
	feed(m, sessionEvents())
	if n := m.layout.help.Dy(); n != 1 {
		t.Errorf("at 60×15 the help bar takes %d rows, want 1", n)
	}
	rows := strings.Split(ansi.Strip(content(m)), "\n")
	if last := rows[len(rows)-1]; !strings.Contains(last, "? help") || !strings.Contains(last, "q quit") {
		t.Errorf("the folded help bar must end in ? help and q quit: %q", last)
	}
	m = newTestModel("dark", 80, 24)
	feed(m, sessionEvents())
	s := ansi.Strip(content(m))
	for _, b := range m.helpBindings() {
		if want := b.Help().Key + " " + b.Help().Desc; !strings.Contains(s, want) {
			t.Errorf("at 80×24 the help bar lacks %q:\n%s", want, s)
		}
	}
}

// The header always shows the connection state whole: the server's name is
// what gives way ("● rea…" at 60 columns, or nothing behind a long name).
func TestHeaderKeepsTheState(t *testing.T) {
	for _, name := range []string{"demo", "mcpscope-demo", "a-server-with-a-very-long-name-indeed-it-goes-on-and-on"} {
		for _, w := range []int{50, 60, 80, 120} {
			evs := sessionEvents()
			for i, ev := range evs {
				if hs, ok := ev.(mcp.HandshakeEvent); ok {
					c := *hs.Handshake
					c.ServerInfo.Name = name
					hs.Handshake = &c
					evs[i] = hs
				}
			}
			m := newTestModel("dark", w, 15)
			feed(m, evs)
			h := headerLine(m)
			if !strings.Contains(h, "● ready") {
				t.Errorf("%s at %d columns: the header lacks the state: %q", name, w, h)
			}
			if !strings.Contains(h, name[:min(len(name), 8)]) {
				t.Errorf("%s at %d columns: the header lacks the server's name: %q", name, w, h)
			}
			if ansi.StringWidth(h) > w {
				t.Errorf("%s at %d columns: header %d wide", name, w, ansi.StringWidth(h))
			}
		}
	}
}

// Below 120 columns the tab row uses short names; the full help opens on
// a legend of them, seen without scrolling at 60, 56 and 50 columns.
func TestHelpOpensOnTheTabLegend(t *testing.T) {
	for _, w := range []int{50, 56, 60, 80} {
		m := newTestModel("dark", w, 15)
		feed(m, sessionEvents())
		press(m, "?")
		s := ansi.Strip(content(m))
		for _, want := range []string{"5 Prom prompts", "7 Act activity", "9 Diag diagnostics"} {
			if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
				t.Errorf("at %d×15 the help lacks %q:\n%s", w, want, s)
			}
		}
	}
}
