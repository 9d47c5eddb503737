package schema_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// TestIssueSentences pins the sentence of every keyword, in each dialect
// where it differs: these are the words the form, call and the doctor
// show.
func TestIssueSentences(t *testing.T) {
	const d4, d7, d2019 = `"$schema":"http://json-schema.org/draft-04/schema#",`, `"$schema":"http://json-schema.org/draft-07/schema#",`, `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	for _, c := range []struct {
		schema, instance string
		want             []string
	}{
		{`{"type":"string"}`, `5`, []string{"(root) must be string, not number"}},
		{`{"type":["integer","null"]}`, `1.5`, []string{"(root) must be null or integer, not number"}},
		{`{"const":{"a":1}}`, `{"a":2}`, []string{"(root) must be {\"a\":1}"}},
		{`{"enum":["a",1]}`, `"b"`, []string{"(root) must be one of \"a\", 1"}},
		{`{"format":"date"}`, `"tomorrow"`, []string{"(root) is not a valid date"}},
		{`{"minLength":2,"maxLength":1}`, `"é"`, []string{"(root) is shorter than minLength (2)"}},
		{`{"pattern":"^[A-Z]{2}$"}`, `"fr"`, []string{"(root) does not match pattern ^[A-Z]{2}$"}},
		{`{"minimum":1.5,"maximum":0.1,"exclusiveMinimum":2,"exclusiveMaximum":0}`, `1`, []string{"(root) is less than minimum (1.5)", "(root) is greater than maximum (0.1)", "(root) is not greater than exclusiveMinimum (2)", "(root) is not less than exclusiveMaximum (0)"}},
		{`{"multipleOf":0.01}`, `0.015`, []string{"(root) is not a multiple of 0.01"}},
		{`{"minItems":2,"maxItems":0,"uniqueItems":true}`, `[1,1.0]`, []string{"(root) has more than maxItems (0)", "(root) has duplicate items (0 and 1)"}},
		{`{"minProperties":2,"maxProperties":0,"required":["x","a/b"]}`, `{"y":1}`, []string{"(root) has fewer than minProperties (2)", "(root) has more than maxProperties (0)", "/a~1b is required", "/x is required"}},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, []string{"/b is required when a is present"}},
		{`{` + d7 + `"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"a":1,"c":2}`, []string{"/b is required when a is present", "/d is required"}},
		{`{"properties":{"a":{"type":"string"}},"additionalProperties":false}`, `{"a":1,"b":2,"c":3}`, []string{"/a must be string, not number", "/b is not allowed (additionalProperties)", "/c is not allowed (additionalProperties)"}},
		{`{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, []string{"/abc is not an allowed property name"}},
		{`{"not":{"type":"string"}}`, `"x"`, []string{"(root) must not match the schema under not"}},
		{`{"contains":{"type":"string"}}`, `[]`, []string{"(root) has no item matching contains"}},
		{`{"contains":{"type":"string"}}`, `[1]`, []string{"/0 must be string, not number"}},
		{`{"contains":{"type":"string"},"minContains":2}`, `["a"]`, []string{"(root) has fewer than minContains (2) matching items"}},
		{`{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`, []string{"(root) has more than maxContains (1) matching items"}},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, `["a",1,2]`, []string{"/1 is not allowed", "/2 is not allowed"}},
		{`{` + d2019 + `"items":[{"type":"string"}],"additionalItems":false}`, `["a",1,2]`, []string{"(root) has 2 items more than allowed"}},
		{`{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1`, []string{"(root) matches more than one oneOf branch (0, 1)"}},
		{`{"anyOf":[{"required":["a","b"]},{"required":["c"]}]}`, `{}`, []string{"/c is required"}},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, []string{"/b is required"}},
		{`{"properties":{"a":true},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, []string{"/b is not allowed"}},
		{`{"prefixItems":[true],"unevaluatedItems":false}`, `[1,2]`, []string{"/1 is not allowed"}},
		{`{` + d4 + `"minimum":0,"exclusiveMinimum":true}`, `0`, []string{"(root) is not greater than exclusiveMinimum (0)"}},
		{`{` + d7 + `"$ref":"#/definitions/s","minimum":5,"definitions":{"s":{"type":"integer"}}}`, `1`, nil},
		{`{"$ref":"#/$defs/s","minimum":5,"$defs":{"s":{"type":"integer"}}}`, `1`, []string{"(root) is less than minimum (5)"}},
		{`{"$ref":"http://json-schema.org/draft-07/schema#"}`, `{"type":"strin"}`, []string{"/type \"strin\" is not a type (null, boolean, object, array, number, string, integer)"}},
		{`false`, `1`, []string{"(root) is not allowed"}},
	} {
		s, err := schema.Compile(json.RawMessage(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		got := issueStrings(s.ValidateJSON(json.RawMessage(c.instance)))
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s against %s:\n got %q\nwant %q", c.instance, c.schema, got, c.want)
		}
	}
}

// TestKnownDialect: the doctor's tools/unsupported-dialect asks this, so
// it must agree with what Compile accepts.
func TestKnownDialect(t *testing.T) {
	for uri, want := range map[string]bool{
		"https://json-schema.org/draft/2020-12/schema":  true,
		"https://json-schema.org/draft/2019-09/schema#": true,
		"http://json-schema.org/draft-07/schema#":       true,
		"https://json-schema.org/draft-06/schema":       true,
		"http://json-schema.org/draft-04/schema#":       true,
		"http://json-schema.org/draft-03/schema#":       false,
		"https://example.com/my-dialect":                false,
	} {
		if got := schema.KnownDialect(uri); got != want {
			t.Errorf("KnownDialect(%q) = %v", uri, got)
		}
		_, err := schema.Compile(json.RawMessage(`{"$schema":"` + uri + `"}`))
		if (err == nil) != want {
			t.Errorf("Compile with $schema %q: %v", uri, err)
		}
	}
}
