package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// A server controls the schema and the instances (structuredContent): no
// schema or instance may panic, hang or overflow the stack. Each case must
// finish well inside a second on a loaded machine.
func TestHostileSchemasEndQuickly(t *testing.T) {
	nested := func(depth int, open, close string) string { // a schema nested depth deep
		return strings.Repeat(open, depth) + "{}" + strings.Repeat(close, depth)
	}
	var exploding strings.Builder // each level refers twice to the next: 2^40 paths
	exploding.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 40 {
		fmt.Fprintf(&exploding, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	exploding.WriteString(`"d40":{"type":"string"}}}`)
	hugeEnum := `{"enum":[` + strings.TrimSuffix(strings.Repeat(`"x",`, 100000), ",") + `,"y"]}`
	hugeArray := `[` + strings.TrimSuffix(strings.Repeat(`{"a":[1,2,{"b":"c"}]},`, 50000), ",") + `,1]`
	for _, c := range []struct {
		name, schema, instance string
		valid                  bool
		compileErr             string // part of the compile error; "" compiles
	}{
		{name: "$ref to itself", schema: `{"$ref":"#"}`, instance: `1`},
		{name: "$ref cycle of two", schema: `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, instance: `{}`},
		{name: "$dynamicRef to itself", schema: `{"$dynamicAnchor":"x","$dynamicRef":"#x"}`, instance: `1`},
		{name: "recursion through the instance", schema: `{"items":{"$ref":"#"}}`, instance: strings.Repeat("[", 5000) + strings.Repeat("]", 5000), valid: true},
		{name: "refs explode exponentially", schema: exploding.String(), instance: `"s"`},
		{name: "schema nested 5000 deep", schema: nested(5000, `{"items":`, "}"), compileErr: "nests more than"},
		{name: "schema nested 1500 deep", schema: nested(1500, `{"not":`, "}"), instance: `1`, valid: true},
		{name: "huge enum", schema: hugeEnum, instance: `"y"`, valid: true},
		{name: "a large valid instance is not cut short", schema: `{"type":"array","items":{"allOf":[{"$ref":"#/$defs/o"},{"type":"object"}]},"$defs":{"o":{"properties":{"a":{"type":"array","items":{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/o"}]}}}}}}`, instance: hugeArray[:len(hugeArray)-3] + "]", valid: true},
		{name: "uniqueItems over 50,000 objects", schema: `{"uniqueItems":true}`, instance: hugeArray, valid: false},
		{name: "pattern that backtracks elsewhere", schema: `{"pattern":"^(a+)+$"}`, instance: `"` + strings.Repeat("a", 100000) + `!"`},
		{name: "multipleOf 1e-308", schema: `{"multipleOf":1e-308}`, instance: `1e308`, valid: true},
		{name: "multipleOf 3 of 1e999999999", schema: `{"multipleOf":3}`, instance: `1e999999999`},
		{name: "multipleOf 1e-999999999", schema: `{"multipleOf":1e-999999999}`, instance: `0.5`, valid: true},
		{name: "minimum 1e999999999", schema: `{"minimum":1e999999999}`, instance: `1e999999998`},
		{name: "minLength 1e18", schema: `{"minLength":1e18}`, instance: `"abc"`},
		{name: "minLength 1e300", schema: `{"minLength":1e300}`, instance: `"abc"`},
		{name: "maxItems 1e300", schema: `{"maxItems":1e300}`, instance: `[1]`, valid: true},
		{name: "integer 2^64+1", schema: `{"type":"integer","maximum":18446744073709551616}`, instance: `18446744073709551617`},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			s, err := schema.Compile(json.RawMessage(c.schema))
			if c.compileErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.compileErr) {
					t.Fatalf("compile error %v, want one saying %q", err, c.compileErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("does not compile: %v", err)
			}
			issues := s.ValidateJSON(json.RawMessage(c.instance))
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if (len(issues) == 0) != c.valid {
				t.Errorf("valid = %v, want %v (issues %v)", len(issues) == 0, c.valid, issues)
			}
			t.Logf("%v: %.100v", time.Since(start).Round(time.Millisecond), issues)
		})
	}
}
