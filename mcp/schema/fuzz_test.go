package schema

import (
	"encoding/json"
	"testing"
)

// FuzzCompileAndMinimal: any schema compiles or is refused without a
// panic, and its minimal instance stays within the caps (issue 15,
// findings 2 and 10).
func FuzzCompileAndMinimal(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":3}}}`,
		`{"type":"array","minItems":2,"items":{"type":"integer","minimum":5}}`,
		`{"$ref":"#/$defs/x","$defs":{"x":{"type":"object","required":["y"],"properties":{"y":{"$ref":"#/$defs/x"}}}}}`,
		`{"oneOf":[{"type":"null"},{"type":"string","pattern":"^[a-z]{3}$"}]}`,
		`{"allOf":[{"required":["a"]},{"properties":{"a":{"const":1}}}]}`,
		`{"type":"object","additionalProperties":{"type":"string"},"minProperties":3}`,
		`{"type":"string","minLength":99999999999}`, `{"type":"number","exclusiveMinimum":1e308}`, `true`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := Compile(json.RawMessage(raw))
		if err != nil {
			return
		}
		v, err := MinimalInstanceBounded(s)
		if err != nil {
			return
		}
		out, _ := json.Marshal(v)
		if len(out) > 8*MaxMinimalBytes+16*MaxMinimalValues {
			t.Fatalf("%q: a minimal instance of %d bytes within the caps", raw, len(out))
		}
	})
}

// FuzzSampleForPattern: a pattern's sample, when there is one, matches it.
func FuzzSampleForPattern(f *testing.F) {
	for _, s := range []string{`^[a-z]+$`, `\d{3}-\d{4}`, `(a|b){1000}`, `x{2,5}y?`, `[^\x00-\x{10FFFF}]`, `(`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if sample, ok := SampleForPattern(pattern); ok && len(sample) > 1<<20 {
			t.Fatalf("%q: a sample of %d bytes", pattern, len(sample))
		}
	})
}
