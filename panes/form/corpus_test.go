package form

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/schematest"
)

func sortedNames(m map[string]json.RawMessage) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// TestCorpusSetValueRoundTrips shows each schema's minimal instance in the
// form and reads it back: the form neither loses nor invents anything, and
// the result validates.
func TestCorpusSetValueRoundTrips(t *testing.T) {
	c := schematest.Corpus(t)
	for _, name := range sortedNames(c) {
		t.Run(name, func(t *testing.T) {
			f := newForm(t, c[name], 100, 30)
			want := schema.MinimalInstance(f.s)
			raw, _ := json.Marshal(want)
			if err := f.SetValue(raw); err != nil {
				t.Fatal(err)
			}
			got, issues := f.Value()
			if len(issues) > 0 {
				t.Errorf("%s does not validate: %v", got, issues)
			}
			var gotV, wantV any
			_ = json.Unmarshal(got, &gotV)
			_ = json.Unmarshal(raw, &wantV)
			if !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("round trip:\n got %s\nwant %s", got, raw)
			}
			_ = f.View()
		})
	}
}

// TestCorpusFillByKeys fills every form the way a person would: for each
// field with a problem it focuses the row and types, toggles or chooses,
// until the value validates.
func TestCorpusFillByKeys(t *testing.T) {
	c := schematest.Corpus(t)
	for _, name := range sortedNames(c) {
		t.Run(name, func(t *testing.T) {
			f := newForm(t, c[name], 100, 30)
			fillByKeys(t, f)
			got, issues := f.Value()
			if len(issues) > 0 {
				t.Fatalf("still invalid after filling: %s\n%v\n%s", got, issues, plain(f.View()))
			}
			if err := f.s.ValidateJSON(got); err != nil {
				t.Fatalf("the produced JSON does not validate: %v", err)
			}
			cmd := press(f, "ctrl+s")
			if cmd == nil {
				t.Fatal("ctrl+s on a valid form sent nothing")
			}
			msg, ok := cmd().(SubmitMsg)
			if !ok || msg.Forced || string(msg.Value) != string(got) {
				t.Fatalf("submit = %#v, want %s", msg, got)
			}
		})
	}
}

// fillByKeys repairs the form field by field with key presses only.
func fillByKeys(t *testing.T, f *Form) {
	t.Helper()
	for pass := 0; pass < 12 && len(f.issues) > 0; pass++ {
		is := f.issues[0]
		i, ok := f.rowByPtr[is.Pointer]
		if !ok {
			t.Fatalf("issue %v has no row; rows %v", is, rowPtrs(f))
		}
		f.cur = i
		f.scrollToCursor()
		r := f.rows[i]
		n := r.n
		sample := f.s.MinimalOf(n.sch)
		switch {
		case r.kind == rowField && n.kind == kindEnum:
			for tries := 0; tries <= len(n.options) && len(issuesAt(f, is.Pointer)) > 0; tries++ {
				press(f, "right")
			}
		case r.kind == rowField && n.kind == kindBool:
			press(f, "enter")
		case r.kind == rowField && n.kind == kindMulti:
			f.cur++ // the first option row
			press(f, "enter")
		case r.kind == rowField && n.kind == kindArray:
			press(f, "alt+a")
		case r.kind == rowField && n.kind == kindObject && n.extra != nil:
			press(f, "alt+a")
		case r.kind == rowField && (n.kind == kindString || n.kind == kindNumber || n.kind == kindInteger || n.kind == kindRaw):
			text := compactJSON(sample)
			if s, isStr := sample.(string); isStr && n.kind != kindRaw {
				text = s
			}
			// The field is edited as soon as it has the cursor.
			f.syncEdit()
			for f.editText() != "" {
				press(f, "backspace")
			}
			typeText(f, text)
			press(f, "tab")
		default:
			t.Fatalf("do not know how to fix %v on a %v row of kind %d", is, r.kind, n.kind)
		}
	}
}

func issuesAt(f *Form, ptr string) []schema.Issue {
	var out []schema.Issue
	for _, is := range f.issues {
		if is.Pointer == ptr || strings.HasPrefix(is.Pointer, ptr+"/") {
			out = append(out, is)
		}
	}
	return out
}
