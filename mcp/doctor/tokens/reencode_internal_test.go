package tokens

import (
	"encoding/json"
	"testing"
)

// Reencode takes every JSON value, writes JSON, and writes its own output
// again unchanged (JSON.stringify(JSON.parse(x)) is x for what it wrote).
func FuzzReencode(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1.0,-0,1e400,"\ud800\u00e9"]`, `{"2":1,"1":2,"b":3,"b":4}`, `"\u003c\/\b"`,
		`{"name":"\u6771\u4eac", "x": [ {}, [], null, true, false ] }`, `123456789012345678901234`, `1E-7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, ok := Reencode(raw)
		if ok != json.Valid(raw) {
			t.Fatalf("%q: re-encoded %v, valid JSON %v", raw, ok, json.Valid(raw))
		}
		if !ok {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q became %q: not JSON", raw, out)
		}
		if again, _ := Reencode(out); string(again) != string(out) {
			t.Fatalf("%q became %q, then %q", raw, out, again)
		}
	})
}
