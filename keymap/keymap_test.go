package keymap

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

// keysOf lists the keys of bindings, mapped to the binding's help.
func keysOf(t *testing.T, group string, bs map[string]key.Binding) map[string]string {
	t.Helper()
	seen := map[string]string{}
	for name, b := range bs {
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("%s.%s has no keys or no help text", group, name)
		}
		for _, k := range b.Keys() {
			if other, dup := seen[k]; dup {
				t.Errorf("%s: %q is bound to both %s and %s", group, k, other, name)
			}
			seen[k] = name
		}
	}
	return seen
}

func TestNoConflicts(t *testing.T) {
	m := Default()
	global := keysOf(t, "Global", map[string]key.Binding{
		"Quit": m.Global.Quit, "Help": m.Global.Help, "NextPane": m.Global.NextPane,
		"PrevPane": m.Global.PrevPane, "Reconnect": m.Global.Reconnect, "Handshake": m.Global.Handshake,
		"Split":       m.Global.Split,
		"LiveSession": m.Global.LiveSession,
		"Calls.List":  m.Calls.List,
	})
	// Keys of panes that sit under the global keys must not be shadowed.
	// (Filter-mode keys and esc are handled while the pane captures input.)
	panes := map[string]map[string]key.Binding{
		"Log": {"Up": m.Log.Up, "Down": m.Log.Down, "PageUp": m.Log.PageUp, "PageDown": m.Log.PageDown,
			"Top": m.Log.Top, "Bottom": m.Log.Bottom, "Follow": m.Log.Follow, "Filter": m.Log.Filter,
			"Open": m.Log.Open, "ToggleStderr": m.Log.ToggleStderr,
			"ToggleTransport": m.Log.ToggleTransport, "Pairs": m.Log.Pairs},
		"Caps": {"Up": m.Caps.Up, "Down": m.Caps.Down, "Toggle": m.Caps.Toggle, "Expand": m.Caps.Expand, "Collapse": m.Caps.Collapse},
		"Tools": {"Up": m.Tools.Up, "Down": m.Tools.Down, "Filter": m.Tools.Filter, "Open": m.Tools.Open,
			"Details": m.Tools.Details, "ScrollUp": m.Tools.ScrollUp, "ScrollDown": m.Tools.ScrollDown,
			"DetailUp": m.Tools.DetailUp, "DetailDown": m.Tools.DetailDown,
			"Calls.Run": m.Calls.Run, "Calls.RunAll": m.Calls.RunAll,
			"ViewAs": m.Tools.ViewAs, "SortCost": m.Tools.SortCost},
		"Detail": {"Up": m.Detail.Up, "Down": m.Detail.Down, "PageUp": m.Detail.PageUp, "PageDown": m.Detail.PageDown,
			"Top": m.Detail.Top, "Bottom": m.Detail.Bottom, "ToggleRaw": m.Detail.ToggleRaw, "Paired": m.Detail.Paired,
			"Copy": m.Detail.Copy, "Preview": m.Detail.Preview, "Close": m.Detail.Close},
	}
	for group, bs := range panes {
		for k, name := range keysOf(t, group, bs) {
			if g, clash := global[k]; clash && group != "Detail" {
				t.Errorf("%s.%s (%q) is shadowed by Global.%s", group, name, k, g)
			}
		}
	}
}

// Default returns a fresh value: changing one KeyMap leaves the next alone.
func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.Global.Quit.SetKeys("x")
	if b := Default(); b.Global.Quit.Keys()[0] != "q" {
		t.Fatal("Default shares state between calls")
	}
}
