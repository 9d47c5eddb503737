package form

import (
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

// FuzzNew: any schema builds a form (or is refused) that draws, takes
// keys and yields a value, without a panic: a server chooses the schema.
func FuzzNew(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string","default":"x\u202e"},"b":{"type":"array","minItems":3,"items":{"type":"integer"}}}}`,
		`{"oneOf":[{"type":"object","properties":{"k":{"enum":["a","b"]}}},{"type":"null"}]}`,
		`{"type":"object","additionalProperties":{"type":"boolean"},"minProperties":2}`,
		`{"type":"array","minItems":99999999999}`, `{"$ref":"#"}`, `true`, `{}`, `[`,
		`{"type":"object","properties":{"h":{"type":"object","patternProperties":{"^x":{"type":"integer"},"(":{}},"additionalProperties":false},"t":{"type":"array","items":{"type":"array"}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fm, err := New(json.RawMessage(raw), Options{Title: "fuzz", Theme: themes.Dark(), Keys: keymap.Default()})
		if err != nil {
			return
		}
		fm.SetSize(80, 24)
		fm.Focus()
		_ = fm.View()
		for _, k := range []tea.Msg{tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyEnter}, tea.KeyPressMsg{Code: 'a', Mod: tea.ModAlt},
			tea.KeyPressMsg{Code: tea.KeyTab}, tea.KeyPressMsg{Code: 'x', Text: "x"}, tea.PasteMsg{Content: "1\r\n2\n"},
			tea.KeyPressMsg{Code: 'o', Mod: tea.ModAlt}, tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}, tea.KeyPressMsg{Code: 'y', Text: "y"}} {
			fm.Update(k)
		}
		_ = fm.View()
		_, _ = fm.Value()
	})
}
