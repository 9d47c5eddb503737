package schema

import (
	"encoding/json"
	"errors"
	"runtime"
	"testing"
)

// Finding 2: a hostile schema's sizes must not decide what mcpscope
// allocates. Each of these used to be built in full (99999999999 ran the
// process out of memory); now each is refused with ErrTooLarge, fast and
// small.
func TestMinimalInstanceIsBounded(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":99999999999}}}`,
		`{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":200000000}}}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":200000000}}}`,
		`{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":1e300}}}`,
		`{"type":"object","required":["m"],"properties":{"m":{"type":"object","additionalProperties":{"type":"string"},"minProperties":200000000}}}`,
		`{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000,"items":{"type":"string"}}}`,
		`{"type":"array","minItems":1000,"items":{"type":"string","minLength":60000}}`,
	} {
		s, err := Compile(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err = MinimalInstanceBounded(s)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", raw, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*MaxMinimalBytes {
			t.Errorf("%s: allocated %d bytes", raw, grew)
		}
	}
}

// Within the caps, the instance is built exactly.
func TestMinimalInstanceWithinCaps(t *testing.T) {
	s, _ := Compile(json.RawMessage(`{"type":"object","required":["s","a"],"properties":{"s":{"type":"string","minLength":65536},"a":{"type":"array","minItems":1000,"items":{"type":"integer"}}}}`))
	v, err := MinimalInstanceBounded(s)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if len(m["s"].(string)) != MaxMinimalLength || len(m["a"].([]any)) != MaxMinimalItems {
		t.Fatalf("got len %d and %d", len(m["s"].(string)), len(m["a"].([]any)))
	}
}
