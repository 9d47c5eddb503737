package panes

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/themes"
)

// longText is a line far wider than any pane, with a marker at its end.
var longText = strings.Repeat("lorem ipsum dolor sit amet ", 12) + "THE-END"

// checkLongLine drives a view with a long line: cut at first, → scrolls
// it sideways to its end, W wraps it whole; the help names both keys.
func checkLongLine(t *testing.T, view func() string, update func(string), help func() [][]string) {
	t.Helper()
	if v := ansi.Strip(view()); strings.Contains(v, "THE-END") || !strings.Contains(v, "…") {
		t.Fatalf("the long line is not cut:\n%s", v)
	}
	for range 12 {
		update("right")
	}
	if v := ansi.Strip(view()); !strings.Contains(v, "THE-END") {
		t.Fatalf("→ did not scroll to the end of the line:\n%s", v)
	}
	update("W")
	v := ansi.Strip(view())
	if !strings.Contains(v, "THE-END") || !strings.Contains(v, "lorem ipsum dolor sit amet lorem") || !strings.Contains(v, "wrap") {
		t.Fatalf("W did not wrap the line:\n%s", v)
	}
	keys := fmt.Sprint(help())
	for _, k := range []string{"←/→", "W"} {
		if !strings.Contains(keys, k) {
			t.Errorf("%s is not in the help bar: %s", k, keys)
		}
	}
}

func helpKeys(short func() []key.Binding) func() [][]string {
	return func() [][]string {
		var out []string
		for _, b := range short() {
			out = append(out, b.Help().Key)
		}
		return [][]string{out}
	}
}

func TestDetailPrettyLongLines(t *testing.T) {
	d := NewDetail(themes.Dark(), keymap.Default(), nil)
	d.SetSize(80, 24)
	d.Focus()
	raw := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`, longText)
	d.SetFrame(&mcp.Frame{Seq: 7, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/message", Raw: []byte(raw)})
	checkLongLine(t, d.View, func(k string) { d.Update(keyPress(k)) }, helpKeys(d.ShortHelp))
}

func TestContentLongLines(t *testing.T) {
	c := NewContent(themes.Dark(), keymap.Default())
	c.SetSize(80, 24)
	c.Focus()
	c.Set("demo://long", ReadResultLines(themes.Dark(), []byte(fmt.Sprintf(`{"contents":[{"uri":"demo://long","mimeType":"text/plain","text":%q}]}`, "first\n"+longText+"\nlast"))))
	checkLongLine(t, c.View, func(k string) { c.Update(keyPress(k)) }, helpKeys(c.ShortHelp))
}

func TestResultLongLines(t *testing.T) {
	r := NewResult(themes.Dark(), keymap.Default())
	r.SetSize(80, 24)
	r.Focus()
	r.SetResult(ToolResultMsg{Name: "t", Result: []byte(fmt.Sprintf(`{"content":[],"structuredContent":{"text":%q}}`, longText))})
	checkLongLine(t, r.View, func(k string) { r.Update(keyPress(k)) }, helpKeys(r.ShortHelp))
}

// Goldens of a resource's long text, cut and wrapped, at the three sizes.
func TestContentWrapGoldens(t *testing.T) {
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
			for _, wrap := range []bool{false, true} {
				t.Run(fmt.Sprintf("dark=%t/%dx%d/wrap=%t", dark, sz.w, sz.h, wrap), func(t *testing.T) {
					c := NewContent(themes.Default(dark), keymap.Default())
					c.SetSize(sz.w, sz.h)
					c.Focus()
					c.Set("demo://long", ReadResultLines(themes.Default(dark), []byte(fmt.Sprintf(`{"contents":[{"uri":"demo://long","mimeType":"text/plain","text":%q}]}`, "first\n"+longText+"\nlast"))))
					if wrap {
						c.Update(keyPress("W"))
					}
					golden.RequireEqual(t, c.View())
				})
			}
		}
	}
}

// Goldens of the detail's pretty view with a long line, cut, scrolled
// sideways and wrapped, at the three sizes.
func TestDetailWrapGoldens(t *testing.T) {
	raw := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`, longText)
	for _, dark := range []bool{true, false} {
		for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
			for _, mode := range []string{"cut", "right", "wrap"} {
				t.Run(fmt.Sprintf("dark=%t/%dx%d/%s", dark, sz.w, sz.h, mode), func(t *testing.T) {
					d := NewDetail(themes.Default(dark), keymap.Default(), nil)
					d.SetSize(sz.w, sz.h)
					d.Focus()
					d.SetFrame(&mcp.Frame{Seq: 7, Dir: mcp.Inbound, Kind: mcp.KindNotification, Method: "notifications/message", Raw: []byte(raw)})
					switch mode {
					case "right":
						d.Update(keyPress("right"))
					case "wrap":
						d.Update(keyPress("W"))
					}
					golden.RequireEqual(t, d.View())
				})
			}
		}
	}
}
