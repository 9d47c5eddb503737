package form

import (
	"encoding/json"
	"testing"
)

// The sequential-thinking server's schema, as a user fills it with Tab:
// nextThoughtNeeded is "type": ["boolean", "string"]. Tab used to stop on
// the type selector, where space switched the type to string, and the
// number typed after the next Tab went into that string.
func TestTabPassesAUnionsSelectorToItsValue(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","required":["thought","nextThoughtNeeded","thoughtNumber","totalThoughts"],"properties":{
		"thought":{"type":"string"},
		"nextThoughtNeeded":{"type":["boolean","string"]},
		"thoughtNumber":{"type":"integer","minimum":1},
		"totalThoughts":{"type":"integer","minimum":1}}}`)
	f := newForm(t, raw, 80, 20)
	typeText(f, "first step")
	press(f, "tab", "space", "tab")
	typeText(f, "1")
	press(f, "tab")
	typeText(f, "3")
	press(f, "tab")
	want := map[string]any{"thought": "first step", "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 3}
	if got := valueOf(t, f); !sameJSON(got, want) {
		t.Errorf("value = %v, want %v", got, want)
	}
	// The selector is still reached with the arrows and switched with →.
	focusPtr(t, f, "/nextThoughtNeeded")
	press(f, "right")
	if _, isString := valueOf(t, f)["nextThoughtNeeded"].(string); !isString {
		t.Errorf("→ on the selector did not switch to the string branch: %v", valueOf(t, f))
	}
}
