package form

import (
	"encoding/json"
	"strings"
	"testing"
)

// A host (the prompts pane's completions) reads the focused text field and
// fills it; other rows say they are not text.
func TestFieldAndSetFieldText(t *testing.T) {
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string"},"style":{"type":"string"},"on":{"type":"boolean"}},"required":["name"]}`), 80, 20)
	ptr, text, ok := f.Field()
	if !ok || ptr != "/name" || text != "" {
		t.Fatalf("Field() = %q %q %v", ptr, text, ok)
	}
	typeText(f, "Ad")
	if _, text, _ := f.Field(); text != "Ad" {
		t.Fatalf("while editing Field() text = %q", text)
	}
	f.SetFieldText("Ada")
	press(f, "tab")
	if ptr, _, _ := f.Field(); ptr != "/style" {
		t.Fatalf("after tab the field is %q", ptr)
	}
	f.SetFieldText("pirate") // an omitted optional field becomes present
	if got := valueOf(t, f); got["name"] != "Ada" || got["style"] != "pirate" {
		t.Fatalf("value %v", got)
	}
	press(f, "tab")
	if _, _, ok := f.Field(); ok {
		t.Fatal("a boolean row claims to be a text field")
	}
	f.SetFieldText("x")
	if _, has := valueOf(t, f)["on"]; has {
		t.Fatal("SetFieldText changed a boolean")
	}
}

// SEP-1330 enum shapes, as elicitation sends them: untitled, titled
// (oneOf const/title), legacy enumNames, and multi-selects of both kinds.
func TestElicitationEnumShapes(t *testing.T) {
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{
		"plain":{"type":"string","enum":["a","b"]},
		"titled":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
		"legacy":{"type":"string","enum":["x","y"],"enumNames":["Ex","Why"]},
		"multi":{"type":"array","items":{"type":"string","enum":["m1","m2"]}},
		"multiTitled":{"type":"array","items":{"anyOf":[{"const":"t1","title":"One"},{"const":"t2","title":"Two"}]}}
	},"required":["plain","titled","legacy","multi","multiTitled"]}`), 100, 30)
	focusPtr(t, f, "/plain")
	press(f, "right")
	focusPtr(t, f, "/titled")
	press(f, "right", "right")
	focusPtr(t, f, "/legacy")
	press(f, "right", "right")
	view := plain(f.View())
	for _, want := range []string{"‹ a ›", "‹ Green ›", "‹ Why ›"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q in\n%s", want, view)
		}
	}
	focusPtr(t, f, "/multi")
	press(f, "down", "space")
	focusPtr(t, f, "/multiTitled")
	press(f, "down", "down", "space")
	view = plain(f.View())
	for _, want := range []string{"[x] m1", "[ ] m2", "[ ] One", "[x] Two"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q in\n%s", want, view)
		}
	}
	v := valueOf(t, f)
	if v["plain"] != "a" || v["titled"] != "g" || v["legacy"] != "y" ||
		!sameJSON(v["multi"], []any{"m1"}) || !sameJSON(v["multiTitled"], []any{"t2"}) {
		t.Fatalf("value %v", v)
	}
}
