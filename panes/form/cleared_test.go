package form

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// An optional field typed and then cleared is omitted again: its row, its
// details and the value sent agree (the row said "age omitted" while the
// details said "optional (present)").
func TestClearedOptionalFieldIsOmitted(t *testing.T) {
	for _, c := range []struct{ name, schema string }{
		{"age", `{"type":"integer"}`},
		{"ratio", `{"type":"number"}`},
		{"nick", `{"type":"string"}`},
	} {
		f := newForm(t, json.RawMessage(`{"type":"object","properties":{"`+c.name+`":`+c.schema+`}}`), 80, 20)
		typeText(f, "42")
		if _, has := valueOf(t, f)[c.name]; !has {
			t.Fatalf("%s: typing did not fill it in", c.name)
		}
		press(f, "backspace", "backspace")
		if _, has := valueOf(t, f)[c.name]; has {
			t.Errorf("%s: cleared, it is still sent: %s", c.name, compact(t, f))
		}
		press(f, "enter") // leave the field
		s := ansi.Strip(f.View())
		if !strings.Contains(s, "optional (omitted)") || strings.Contains(s, "(present)") {
			t.Errorf("%s: cleared, the details do not say omitted:\n%s", c.name, s)
		}
	}
}

// The raw JSON view's line numbers keep one gutter width: line 10 was
// drawn one column right of line 9.
func TestRawViewGutterLinesUp(t *testing.T) {
	var props []string
	for i := range 12 {
		props = append(props, `"k`+string(rune('a'+i))+`":{"type":"integer","default":1}`)
	}
	f := newForm(t, json.RawMessage(`{"type":"object","properties":{`+strings.Join(props, ",")+`},"required":["ka","kb","kc","kd","ke","kf","kg","kh","ki","kj","kk","kl"]}`), 60, 24)
	press(f, "ctrl+e")
	if !f.raw {
		t.Fatal("ctrl+e did not open the raw view")
	}
	col := map[int]int{}
	for _, l := range strings.Split(ansi.Strip(f.View()), "\n") {
		if i := strings.Index(l, `"k`); i >= 0 {
			col[ansi.StringWidth(l[:i])]++
		}
	}
	if len(col) != 1 {
		t.Errorf("the members start at columns %v, want one column:\n%s", col, ansi.Strip(f.View()))
	}
}
