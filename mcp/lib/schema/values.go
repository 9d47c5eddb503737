package schema

// The JSON data model as the validator sees decoded instances: type names
// and equality (for const, enum and uniqueItems), numbers compared by
// value.

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// JSON Schema's type names, as bits, in the order messages list them.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func typeBit(name string) uint8 {
	for i, n := range typeNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// typeNamesOf lists the names in bits, in canonical order.
func typeNamesOf(bits uint8) []string {
	var out []string
	for i, n := range typeNames {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// typeOf is an instance's JSON type; a number is "number" (integer is a
// refinement the type keyword checks on its own). Anything else is "".
func typeOf(v any) uint8 {
	switch v := v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case json.Number, float64:
		if _, ok := numberOf(v); !ok {
			return 0
		}
		return typeNumber
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	}
	return 0
}

// Equal is JSON equality of decoded values (Decode's): numbers by value
// (3 and 3.0 are one number, compared exactly, however long their text),
// objects regardless of key order. Every comparison of two JSON values
// that a person reads as "the same" goes through it.
func Equal(a, b any) bool { return equal(a, b) }

// equal is JSON equality: numbers by value, objects regardless of key
// order.
func equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number, float64:
		da, ok := numberOf(a)
		if !ok {
			return false
		}
		db, ok := numberOf(b)
		return ok && da.cmp(db) == 0
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equal(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// canonical writes a text that is the same for equal values and differs
// otherwise, so uniqueItems is one pass with a map rather than n² compares.
func canonical(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if v {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number, float64:
		d, _ := numberOf(v)
		b.WriteByte('#')
		b.WriteString(d.key())
	case []any:
		b.WriteByte('[')
		for _, x := range v {
			canonical(b, x)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, v[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		b.WriteString("?")
	}
}

// firstDuplicate finds two equal items (i < j), or -1, -1.
func firstDuplicate(arr []any) (int, int) {
	if len(arr) < 2 {
		return -1, -1
	}
	if len(arr) <= 8 {
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if equal(arr[i], arr[j]) {
					return i, j
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, len(arr))
	var b strings.Builder
	for j, x := range arr {
		b.Reset()
		canonical(&b, x)
		k := b.String()
		if i, ok := seen[k]; ok {
			return i, j
		}
		seen[k] = j
	}
	return -1, -1
}
