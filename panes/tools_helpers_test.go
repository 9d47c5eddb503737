package panes

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// Helpers shared by the tests of the tools, jsonedit, caps, handshake and
// result panes.

// paneSizes are the sizes every pane golden is taken at.
var paneSizes = []struct{ w, h int }{{80, 24}, {120, 35}}

// hostile are the sequences a server might slip into any string it sends:
// set the window title, clear the screen, write the clipboard.
var hostile = []string{"\x1b]0;pwned\x07", "\x1b[2J", "\x1b]52;c;aGk=\x07"}

// press builds a key press from a name ("enter", "ctrl+s") or a character.
func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// assertPaneSize checks the pane contract: exactly h lines of exactly w cells.
func assertPaneSize(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d:\n%s", len(lines), h, ansi.Strip(v))
	}
	for i, line := range lines {
		if got := ansi.StringWidth(line); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(line))
		}
	}
}

// assertNoRawEscapes fails when a hostile sequence reached the view raw,
// and checks that its escaped form is visible instead.
func assertNoRawEscapes(t *testing.T, v string, wantVisible ...string) {
	t.Helper()
	for _, h := range hostile {
		if strings.Contains(v, h) {
			t.Errorf("view holds the raw sequence %q", h)
		}
	}
	// Styling uses CSI … m only; any other ESC is from the server.
	stripped := ansi.Strip(v)
	if strings.ContainsAny(stripped, "\x1b\x07\u009b") {
		t.Errorf("view holds control characters outside styling: %q", stripped)
	}
	for _, s := range wantVisible {
		if !strings.Contains(stripped, s) {
			t.Errorf("view does not show %q as text:\n%s", s, stripped)
		}
	}
}

// goldenViews takes the 80×24 and 120×35 goldens, dark and light, of the
// pane make builds.
func goldenViews(t *testing.T, make func(dark bool, w, h int) interface{ View() string }) {
	t.Helper()
	for _, dark := range []bool{true, false} {
		for _, sz := range paneSizes {
			t.Run(fmt.Sprintf("dark=%t/%dx%d", dark, sz.w, sz.h), func(t *testing.T) {
				v := make(dark, sz.w, sz.h).View()
				assertPaneSize(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)
			})
		}
	}
}
