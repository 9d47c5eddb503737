package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestCoerceArgument(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{
		"n":{"type":"integer"}, "x":{"type":"number"}, "s":{"type":"string"}, "b":{"type":"boolean"},
		"o":{"type":"object"}, "a":{"type":"array"}, "ns":{"type":["null","integer"]}, "free":{}}}`)
	for _, tc := range []struct {
		name, value string
		want        string // fmt of the result with its Go type, or "error: <substring>"
	}{
		{"n", "7", "json.RawMessage 7"},
		{"n", "1.5", "error: an integer"},
		{"x", "1.5", "json.RawMessage 1.5"},
		{"x", "inf", "error: a number"},
		{"x", "0x10", "error: a number"},
		{"s", "42", "string 42"},
		{"b", "true", "bool true"},
		{"b", "yes", "error: true or false"},
		{"o", `{"k":1}`, `json.RawMessage {"k":1}`},
		{"o", `[1]`, "error: a JSON object"},
		{"a", `[1]`, "json.RawMessage [1]"},
		{"ns", "null", "<nil> <nil>"},
		{"ns", "3", "json.RawMessage 3"},
		{"free", "3", "json.RawMessage 3"}, // no type: JSON when it parses
		{"undescribed", `{"a":1}`, `json.RawMessage {"a":1}`},
		{"undescribed", "hello", "string hello"}, // not JSON: a string
	} {
		got, err := CoerceArgument(in, tc.name, tc.value)
		var s string
		switch v := got.(type) {
		case json.RawMessage:
			s = "json.RawMessage " + string(v)
		default:
			s = fmt.Sprintf("%T %v", v, v)
		}
		if err != nil {
			s = "error: " + err.Error()
		}
		if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s=%s: got %s, want an error saying %q", tc.name, tc.value, s, want)
			}
			continue
		}
		if s != tc.want {
			t.Errorf("%s=%s: got %s, want %s", tc.name, tc.value, s, tc.want)
		}
	}
	if got, err := CoerceArgument(json.RawMessage(`not a schema`), "n", "7"); err != nil || string(got.(json.RawMessage)) != "7" {
		t.Errorf("broken schema: %v, %v (want the JSON guess)", got, err)
	}
}

// A type no KEY=VALUE can be gets a whole sentence, not "the inputSchema
// wants " cut short.
func TestCoerceArgumentUnconvertibleType(t *testing.T) {
	in := json.RawMessage(`{"type":"object","properties":{"z":{"type":"nope"},"n":{"type":"null"}}}`)
	for _, name := range []string{"z", "n"} {
		_, err := CoerceArgument(in, name, "1")
		if err == nil || strings.HasSuffix(strings.TrimSpace(err.Error()), "wants") || !strings.Contains(err.Error(), "--tool-args-json") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
