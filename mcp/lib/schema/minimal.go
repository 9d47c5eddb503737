package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// maxMinimalDepth stops a recursive schema whose required properties
// recurse (unsatisfiable anyway) from building forever.
const maxMinimalDepth = 24

// The caps on what a schema may make mcpscope allocate. A tool's schema
// comes from the server under test: "minLength": 99999999999 must not
// exhaust memory, and an argument of 200 MB is not a plausible test call.
// Beyond a cap the instance is not built and [MinimalInstanceBounded]
// reports [ErrTooLarge]; `check --call-tools` then reports the tool as
// untestable instead of calling it.
const (
	// MaxMinimalLength caps a string's minLength.
	MaxMinimalLength = 64 << 10
	// MaxMinimalItems caps an array's minItems and an object's
	// minProperties (also in the schema form).
	MaxMinimalItems = 1000
	// MaxMinimalValues caps the values in one instance, nested ones
	// included (minItems 1000 of minItems 1000 is a million).
	MaxMinimalValues = 10000
	// MaxMinimalBytes caps the total length of the strings in one
	// instance.
	MaxMinimalBytes = 1 << 20
)

// ErrTooLarge is wrapped when a schema asks for a minimal instance beyond
// one of the caps above.
var ErrTooLarge = errors.New("the schema's minimal instance is too large to build")

// MinimalInstance builds the smallest instance that should validate: only
// required properties, each the schema's const, default, first enum value
// or first example, or else the least value its type and bounds allow
// (minimum, minLength, minItems, a sample of its format). It is a best
// effort: a pattern it cannot satisfy is left to the validator to report.
// Used for form skeletons and to call tools with plausible arguments.
// Beyond the caps it returns what was built so far (bounded, and likely
// invalid); use MinimalInstanceBounded to know.
func MinimalInstance(s *Schema) any {
	v, _ := MinimalInstanceBounded(s)
	return v
}

// MinimalInstanceBounded is MinimalInstance that says when a cap was hit
// (an error wrapping ErrTooLarge, naming the keyword and the cap).
func MinimalInstanceBounded(s *Schema) (any, error) {
	b := &minimalBuilder{s: s}
	v := b.minimal(s.doc, 0)
	return v, b.err
}

// minimalBuilder counts what one instance costs against the caps.
type minimalBuilder struct {
	s      *Schema
	values int
	bytes  int
	err    error
}

func (b *minimalBuilder) tooLarge(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("%w: %s", ErrTooLarge, fmt.Sprintf(format, args...))
	}
}

// count charges n values; false once a cap is hit (building stops).
func (b *minimalBuilder) count(n int) bool {
	if b.err != nil {
		return false
	}
	b.values += n
	if b.values > MaxMinimalValues {
		b.tooLarge("more than %d values (the caps: minLength %d, minItems/minProperties %d, %d values, %d bytes)",
			MaxMinimalValues, MaxMinimalLength, MaxMinimalItems, MaxMinimalValues, MaxMinimalBytes)
		return false
	}
	return true
}

func (b *minimalBuilder) minimal(node any, depth int) any {
	s := b.s
	m := s.Resolve(node)
	if depth > maxMinimalDepth || !b.count(1) {
		return nil
	}
	if v, ok := m["const"]; ok {
		return v
	}
	if v, ok := m["default"]; ok {
		return v
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	m = s.MergeAllOf(m)
	for _, kw := range []string{"oneOf", "anyOf"} {
		if branches, ok := m[kw].([]any); ok && len(branches) > 0 {
			return b.minimal(s.MergeBranch(m, kw, branches[firstNonNull(s, branches)]), depth+1)
		}
	}
	types := Types(m)
	typ := ""
	for _, t := range types {
		if t != "null" {
			typ = t
			break
		}
	}
	if typ == "" && len(types) > 0 {
		return nil
	}
	if typ == "" {
		switch {
		case m["properties"] != nil || m["required"] != nil:
			typ = "object"
		case m["items"] != nil:
			typ = "array"
		}
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, name := range RequiredNames(m) {
			if b.err != nil {
				break
			}
			out[name] = b.minimal(props[name], depth+1)
		}
		// Maps (additionalProperties) with minProperties get made-up keys.
		if extra, ok := m["additionalProperties"]; ok && extra != false {
			want, huge := boundedKeyword(m, "minProperties")
			if huge || want > MaxMinimalItems {
				b.tooLarge("minProperties %s is over the cap of %d", keywordText(m, "minProperties"), MaxMinimalItems)
				return out
			}
			for i := 1; len(out) < want && b.err == nil; i++ {
				if k := "key" + strconv.Itoa(i); out[k] == nil {
					out[k] = b.minimal(extra, depth+1)
				}
			}
		}
		return out
	case "array":
		n, huge := boundedKeyword(m, "minItems")
		if huge || n > MaxMinimalItems {
			b.tooLarge("minItems %s is over the cap of %d", keywordText(m, "minItems"), MaxMinimalItems)
			return []any{}
		}
		out := make([]any, 0, n)
		for i := 0; i < n && b.err == nil; i++ {
			out = append(out, b.minimal(m["items"], depth+1))
		}
		return out
	case "string":
		if n, huge := boundedKeyword(m, "minLength"); huge || n > MaxMinimalLength {
			b.tooLarge("minLength %s is over the cap of %d", keywordText(m, "minLength"), MaxMinimalLength)
			return ""
		}
		str := minimalString(m)
		if b.bytes += len(str); b.bytes > MaxMinimalBytes {
			b.tooLarge("its strings add up to more than %d bytes", MaxMinimalBytes)
			return ""
		}
		return str
	case "integer", "number":
		return minimalNumber(m, typ == "integer")
	case "boolean":
		return false
	}
	return nil
}

func firstNonNull(s *Schema, branches []any) int {
	for i, b := range branches {
		if t := Types(s.Resolve(b)); len(t) != 1 || t[0] != "null" {
			return i
		}
	}
	return 0
}

// FormatSamples are valid sample values of the formats the form hints at.
var FormatSamples = map[string]string{
	"date":      "2000-01-01",
	"date-time": "2000-01-01T00:00:00Z",
	"time":      "00:00:00Z",
	"email":     "user@example.com",
	"uri":       "https://example.com",
	"url":       "https://example.com",
	"uuid":      "00000000-0000-0000-0000-000000000000",
	"hostname":  "example.com",
	"ipv4":      "127.0.0.1",
	"ipv6":      "::1",
}

func minimalString(m map[string]any) string {
	if f, _ := m["format"].(string); FormatSamples[f] != "" {
		return FormatSamples[f]
	}
	if p, ok := m["pattern"].(string); ok {
		if sample, ok := SampleForPattern(p); ok {
			return sample
		}
	}
	return strings.Repeat("a", intKeyword(m, "minLength"))
}

func minimalNumber(m map[string]any, integer bool) any {
	lo, hasLo := ratKeyword(m, "minimum")
	if x, ok := ratKeyword(m, "exclusiveMinimum"); ok {
		// The least allowed value is just above the bound: +1 for integers
		// keeps it simple and valid for numbers too.
		lo, hasLo = new(big.Rat).Add(x, big.NewRat(1, 1)), true
	}
	hi, hasHi := ratKeyword(m, "maximum")
	if x, ok := ratKeyword(m, "exclusiveMaximum"); ok {
		hi, hasHi = new(big.Rat).Sub(x, big.NewRat(1, 1)), true
	}
	v := new(big.Rat)
	switch {
	case hasLo && lo.Sign() > 0:
		v = lo
	case hasHi && hi.Sign() < 0:
		v = hi
	}
	if integer && !v.IsInt() {
		// Round up to the next integer.
		q := new(big.Int).Quo(v.Num(), v.Denom())
		if v.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		v = new(big.Rat).SetInt(q)
	}
	if v.IsInt() {
		return json.Number(v.Num().String())
	}
	return json.Number(strings.TrimRight(strings.TrimRight(v.FloatString(12), "0"), "."))
}

// RequiredNames lists a resolved schema's "required" keyword, in order.
func RequiredNames(m map[string]any) []string {
	req, _ := m["required"].([]any)
	out := make([]string, 0, len(req))
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// boundedKeyword is a non-negative integer keyword; big reports a value
// too large for an int (a cap is hit at once).
func boundedKeyword(m map[string]any, kw string) (n int, huge bool) {
	r, ok := ratKeyword(m, kw)
	if !ok || r.Sign() <= 0 {
		return 0, false
	}
	if !r.IsInt() {
		// minItems 2.5 is not an integer; round up as a validator would demand.
		q := new(big.Int).Quo(r.Num(), r.Denom())
		r = new(big.Rat).SetInt(q.Add(q, big.NewInt(1)))
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<40 {
		return 0, true
	}
	return int(r.Num().Int64()), false
}

func keywordText(m map[string]any, kw string) string {
	switch v := m[kw].(type) {
	case json.Number:
		return string(v)
	default:
		return fmt.Sprint(v)
	}
}

func intKeyword(m map[string]any, kw string) int {
	if r, ok := ratKeyword(m, kw); ok && r.IsInt() && r.Num().IsInt64() {
		return int(r.Num().Int64())
	}
	return 0
}

func ratKeyword(m map[string]any, kw string) (*big.Rat, bool) {
	switch n := m[kw].(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(n))
		return r, ok
	case float64:
		return new(big.Rat).SetFloat64(n), true
	}
	return nil, false
}

// MergeAllOf folds allOf subschemas into m, so a form can show one set of
// fields: properties are united, required lists joined, other keywords
// taken from the first schema that has them. Validation still uses the
// real schema, so a lossy merge only affects what is drawn.
func (s *Schema) MergeAllOf(m map[string]any) map[string]any {
	all, ok := m["allOf"].([]any)
	if !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "allOf" {
			out[k] = v
		}
	}
	for _, sub := range all {
		out = s.mergeInto(out, s.MergeAllOf(s.Resolve(sub)))
	}
	return out
}

// MergeBranch lays a oneOf/anyOf branch over the keywords beside it
// (type, properties, required), so the form shows the base fields and
// the branch's together.
func (s *Schema) MergeBranch(base map[string]any, keyword string, branch any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		if k != keyword && k != "default" && k != "examples" {
			out[k] = v
		}
	}
	return s.mergeInto(out, s.MergeAllOf(s.Resolve(branch)))
}

func (s *Schema) mergeInto(dst, src map[string]any) map[string]any {
	for k, v := range src {
		switch k {
		case "properties":
			props := map[string]any{}
			var keys []string
			if d, ok := dst[k].(map[string]any); ok {
				for _, pk := range s.Keys(d) {
					props[pk] = d[pk]
					keys = append(keys, pk)
				}
			}
			if sp, ok := v.(map[string]any); ok {
				for _, pk := range s.Keys(sp) {
					pv := sp[pk]
					if _, exists := props[pk]; !exists {
						props[pk] = pv
						keys = append(keys, pk)
					} else {
						props[pk] = map[string]any{"allOf": []any{props[pk], pv}}
					}
				}
			}
			s.remember(props, keys)
			dst[k] = props
		case "required":
			names := map[string]bool{}
			var list []any
			for _, r := range append(anySlice(dst[k]), anySlice(v)...) {
				if s, ok := r.(string); ok && !names[s] {
					names[s] = true
					list = append(list, s)
				}
			}
			dst[k] = list
		default:
			if _, exists := dst[k]; !exists {
				dst[k] = v
			}
		}
	}
	return dst
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// MinimalOf is MinimalInstance for a subschema of s (a node of its
// document, or a map the caller merged from it).
func (s *Schema) MinimalOf(node any) any {
	b := &minimalBuilder{s: s}
	return b.minimal(node, 0)
}
