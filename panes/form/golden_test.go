package form

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/themes"
)

// TestFormGolden draws book_trip (an object holding an array of objects,
// and a oneOf) part filled, with errors showing, at both sizes and in both
// themes. Regenerate with: go test ./panes/form/ -run Golden -update
func TestFormGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, size := range [][2]int{{80, 24}, {120, 35}} {
			t.Run(fmt.Sprintf("dark=%v/%dx%d", dark, size[0], size[1]), func(t *testing.T) {
				f, err := New(bookTrip(t), Options{Title: "Call book_trip", Theme: themes.Default(dark), Keys: keymap.Default()})
				if err != nil {
					t.Fatal(err)
				}
				f.SetSize(size[0], size[1])
				f.Focus()
				compile(f)
				editField(t, f, "/traveller/name", "Ada Lovelace")
				editField(t, f, "/traveller/age", "36x")
				editField(t, f, "/legs/0/from", "LHR")
				editField(t, f, "/legs/0/to", "CDG")
				focusPtr(t, f, "/legs/0")
				press(f, "alt+a")
				editField(t, f, "/legs/1/from", "CDG")
				focusPtr(t, f, "/payment")
				press(f, "right")
				focusPtr(t, f, "/legs/1/date")
				golden.RequireEqual(t, f.View())
			})
		}
	}
}

// TestKeyValueGolden draws mcp-fetch-server's fetch_html with two headers
// added as key/value rows, the cursor on a value, at the sizes a person
// uses it at. Regenerate with: go test ./panes/form/ -run Golden -update
func TestKeyValueGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, size := range [][2]int{{80, 24}, {60, 15}} {
			t.Run(fmt.Sprintf("dark=%v/%dx%d", dark, size[0], size[1]), func(t *testing.T) {
				f, err := New(json.RawMessage(fetchHTML), Options{Title: "Call fetch_html", Theme: themes.Default(dark), Keys: keymap.Default()})
				if err != nil {
					t.Fatal(err)
				}
				f.SetSize(size[0], size[1])
				f.Focus()
				compile(f)
				typeText(f, "http://127.0.0.1:9/")
				press(f, "tab", "alt+a")
				typeText(f, "Accept")
				press(f, "tab")
				typeText(f, "text/html")
				press(f, "tab", "enter")
				typeText(f, "X-Retries")
				press(f, "tab")
				typeText(f, "3")
				golden.RequireEqual(t, f.View())
			})
		}
	}
}
