package panes

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// lyingRunes are characters that make text lie: bidi overrides and
// isolates, zero-width characters, a C1 CSI.
var lyingRunes = []string{"\u202e", "\u2066", "\u200f", "\u200b", "\u200d", "\ufeff", "\u2060", "\u009b"}

func rawLiar(t *testing.T, where, screen string) {
	t.Helper()
	for _, r := range lyingRunes {
		if strings.Contains(screen, r) {
			t.Errorf("%s: %q reaches the terminal raw", where, r)
		}
	}
}

// Finding 5: the raw JSON editor shows a server's bidi and zero-width
// characters as visible escapes, not raw.
func TestJSONEditorEscapesLyingCharacters(t *testing.T) {
	tool := mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}
	initial, _ := json.Marshal(map[string]string{"path": "safe" + strings.Join(lyingRunes, "") + "txt.exe"})
	e := NewJSONEdit(themes.Dark(), keymap.Default(), tool, initial)
	e.SetSize(100, 20)
	e.Focus()
	screen := e.View()
	rawLiar(t, "JSON editor", screen)
	if !strings.Contains(screen, `\u202e`) {
		t.Errorf("the bidi override is not shown as an escape:\n%s", screen)
	}
}

// Finding 5: taking a completion whose value holds an ESC no longer drops
// the ESC silently: the field gets the escaped text the user saw, and the
// form says so.
func TestTakingAnUnsafeCompletionIsExplicit(t *testing.T) {
	a := NewArgsForm(themes.Dark(), keymap.Default(), "prompt", json.RawMessage(`{"type":"ref/prompt","name":"p"}`), []ArgField{{Name: "lang", Required: true}})
	a.SetSize(100, 20)
	a.Focus()
	a.Completes = true
	cmd := a.completeCmd()
	if cmd == nil {
		t.Fatal("no completion asked")
	}
	a.SetCompletions(CompletionsMsg{Seq: a.seq, Values: []string{"py\x1b]0;pwned\x07thon\u202e"}})
	a.Update(tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl})
	got := a.Values()["lang"]
	if want := `py\x1b]0;pwned\x07thon\u202e`; got != want {
		t.Fatalf("the field holds %q, want the escaped text shown %q", got, want)
	}
	if !strings.Contains(a.View(), "escaped text shown") {
		t.Errorf("the form does not say the suggestion was escaped:\n%s", a.View())
	}
}
