package schema

import (
	"encoding/json"
	"testing"
)

// FuzzCompileAndMinimal: any schema compiles or is refused without a
// panic, and its minimal instance stays within the caps: a server
// chooses its schemas.
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

// FuzzValidate: a server controls the schema and the instance; whatever
// both are, compiling and validating ends without a panic, and a valid
// verdict has no issues while an invalid one has some.
func FuzzValidate(f *testing.F) {
	for _, c := range [][2]string{
		{`{"$ref":"#"}`, `1`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `{}`},
		{`{"$dynamicAnchor":"x","items":{"$dynamicRef":"#x"}}`, `[[[]]]`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}`, `[[1]]`},
		{`{"multipleOf":1e-308}`, `1e308`},
		{`{"minLength":1e18,"pattern":"^(a+)+$"}`, `"aaaa!"`},
		{`{"uniqueItems":true,"items":{"enum":[1,"a",null]}}`, `[1,1.0,"a"]`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://x/","minimum":1,"exclusiveMinimum":true}`, `1`},
		{`{"oneOf":[{"required":["a"]},{"anyOf":[{"type":"integer"},{"not":{}}]}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`},
		{`{"prefixItems":[{"const":1}],"contains":{"minimum":2},"minContains":1,"unevaluatedItems":false}`, `[1,2,3]`},
		{`{"if":{"type":"string"},"then":{"format":"date"},"else":{"dependentRequired":{"a":["b"]}}}`, `"2026-02-30"`},
		{`{"$ref":"http://json-schema.org/draft-07/schema#"}`, `{"type":["string","string"]}`},
	} {
		f.Add([]byte(c[0]), []byte(c[1]))
	}
	f.Fuzz(func(t *testing.T, rawSchema, rawInstance []byte) {
		s, err := Compile(json.RawMessage(rawSchema))
		if err != nil {
			return
		}
		inst, err := Decode(rawInstance)
		if err != nil {
			return
		}
		v := s.validator()
		val := &validator{c: v, maxSteps: stepBudget(1000)}
		var out []Issue
		valid := val.validate(v.root, inst, &out, nil)
		if valid != (len(out) == 0) {
			t.Fatalf("valid = %v with issues %v", valid, out)
		}
		if val.gaveUp {
			return // the budget can end the two walks at different places
		}
		quiet := (&validator{c: v, maxSteps: stepBudget(1000)}).validate(v.root, inst, nil, nil)
		if quiet != valid {
			t.Fatalf("quiet validation says %v, the full one %v (%v)", quiet, valid, out)
		}
	})
}
