package form

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Typing on an empty array dropped the keys ("this row takes no typing"):
// the first key now starts item 0 and goes into it, on an add row the
// next item, and on an empty key/value object a key.
func TestTypingStartsTheFirstItem(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","required":["entities"],"properties":{
		"tags":{"type":"array","items":{"type":"string"}},
		"entities":{"type":"array","items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"kind":{"type":"string"}}}},
		"grid":{"type":"array","items":{"type":"array","items":{"type":"integer"}}},
		"none":{"type":"array","maxItems":0,"items":{"type":"string"}},
		"headers":{"type":"object"}}}`)
	f := newForm(t, raw, 100, 30)
	focusPtr(t, f, "/tags") // omitted
	if s := plain(f.View()); !strings.Contains(s, "typing starts the first item (alt+a)") {
		t.Errorf("the empty array does not say typing starts an item:\n%s", s)
	}
	typeText(f, "red")
	if got := valueOf(t, f)["tags"]; !sameJSON(got, []any{"red"}) {
		t.Fatalf("typing red on the empty tags: %v (%s)", got, f.flash)
	}
	if r := f.rows[f.cur]; r.ptr != "/tags/0" || !f.Editing() {
		t.Errorf("the cursor is on %s (editing %v), want /tags/0", r.ptr, f.Editing())
	}
	press(f, "tab") // the add row
	typeText(f, "blue")
	if got := valueOf(t, f)["tags"]; !sameJSON(got, []any{"red", "blue"}) {
		t.Errorf("typing on the add row: %v", got)
	}

	// An object item opens on its first field, which takes the key.
	focusPtr(t, f, "/entities") // required, present, empty
	typeText(f, "alice")
	press(f, "tab")
	typeText(f, "person")
	if got := valueOf(t, f)["entities"]; !sameJSON(got, []any{map[string]any{"name": "alice", "kind": "person"}}) {
		t.Errorf("entities = %v", got)
	}
	// An array of arrays starts both.
	focusPtr(t, f, "/grid")
	typeText(f, "42")
	if got := valueOf(t, f)["grid"]; !sameJSON(got, []any{[]any{42}}) {
		t.Errorf("grid = %v", got)
	}
	// An empty key/value object starts a key.
	focusPtr(t, f, "/headers")
	typeText(f, "Accept")
	press(f, "tab")
	typeText(f, "text/html")
	if got := valueOf(t, f)["headers"]; !sameJSON(got, map[string]any{"Accept": "text/html"}) {
		t.Errorf("headers = %v", got)
	}
	// Where no item may be added, the key is refused, saying why.
	focusPtr(t, f, "/none")
	typeText(f, "x")
	if _, has := valueOf(t, f)["none"]; has || !strings.Contains(f.flash, "maxItems is 0") {
		t.Errorf("maxItems 0: %v, %q", valueOf(t, f)["none"], f.flash)
	}
	// On an array that has items, the header takes no typing and says how
	// to add one.
	focusPtr(t, f, "/tags")
	typeText(f, "x")
	if got := valueOf(t, f)["tags"]; !sameJSON(got, []any{"red", "blue"}) || !strings.Contains(f.flash, "this row takes no typing: alt+a adds an item") {
		t.Errorf("x on a filled array's header: %v, %q", got, f.flash)
	}
	// A paste starts an item the same way.
	g := newForm(t, raw, 100, 30)
	focusPtr(t, g, "/tags")
	g.Update(tea.PasteMsg{Content: "pasted"})
	if got := valueOf(t, g)["tags"]; !sameJSON(got, []any{"pasted"}) {
		t.Errorf("a paste on the empty tags: %v", got)
	}
}
