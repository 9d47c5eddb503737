package form

import (
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
	"github.com/mcpscope/mcpscope/themes"
)

func bookTrip(t testing.TB) json.RawMessage {
	return schematest.Tools(t, "demo-tools.json")["book_trip"]
}

func newForm(t testing.TB, raw json.RawMessage, w, h int) *Form {
	t.Helper()
	f, err := New(raw, Options{Title: "Call test", Theme: themes.Default(true), Keys: keymap.Default()})
	if err != nil {
		t.Fatal(err)
	}
	f.SetSize(w, h)
	f.Focus()
	compile(f)
	return f
}

// compile runs the form's Init command as the program would.
func compile(f *Form) {
	if cmd := f.Init(); cmd != nil {
		f.Update(cmd())
	}
}

// press sends keys by name ("tab", "enter", "ctrl+s", "alt+up") or, for a
// plain string of printable characters, types them one by one.
func press(f *Form, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		last = f.Update(keyMsg(k))
	}
	return last
}

func typeText(f *Form, s string) {
	for _, r := range s {
		f.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
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
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "alt+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case "alt+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	if len(k) == 5 && k[:4] == "alt+" {
		return tea.KeyPressMsg{Code: rune(k[4]), Mod: tea.ModAlt}
	}
	if len(k) > 5 && k[:5] == "ctrl+" {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// focusPtr moves the cursor to the first row at pointer ptr.
func focusPtr(t testing.TB, f *Form, ptr string) {
	t.Helper()
	for i, r := range f.rows {
		if r.ptr == ptr && r.kind == rowField {
			f.cur = i
			f.scrollToCursor()
			f.syncEdit()
			return
		}
	}
	t.Fatalf("no row at %q; rows: %v", ptr, rowPtrs(f))
}

func rowPtrs(f *Form) []string {
	out := make([]string, len(f.rows))
	for i, r := range f.rows {
		out[i] = r.ptr
	}
	return out
}

func plain(s string) string { return ansi.Strip(s) }

// editText is the text in the focused field's editor.
func (f *Form) editText() string {
	if f.multiline {
		return f.fieldArea.Value()
	}
	return f.input.Value()
}
