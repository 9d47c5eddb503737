package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The window title and the status line name the target without its
// secrets: a URL's query (?api_key=), its user info, a command's
// --api-key value. A terminal shows its title to anyone sharing the
// screen, and keeps it in window lists.
func TestWindowTitleRedactsSecrets(t *testing.T) {
	for _, target := range []string{
		"https://h.example/mcp?api_key=TITLE-SECRET&page=2",
		"https://me:TITLE-SECRET@h.example/mcp",
		"node server.js --api-key TITLE-SECRET --token=TITLE-SECRET GITHUB_TOKEN=TITLE-SECRET",
	} {
		m := New(Config{Target: target})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
		title := m.View().WindowTitle
		if strings.Contains(title, "TITLE-SECRET") || !strings.Contains(title, "[redacted]") {
			t.Errorf("%s: title %q", target, title)
		}
		if !strings.Contains(title, "h.example") && !strings.Contains(title, "server.js") {
			t.Errorf("%s: the title no longer names the target: %q", target, title)
		}
		if s := content(m); strings.Contains(s, "TITLE-SECRET") {
			t.Errorf("%s: the screen shows the secret:\n%s", target, s)
		}
	}
}
