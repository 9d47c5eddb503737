package schema

// The keywords that look at one kind of instance: objects (properties,
// required, dependencies...), arrays (items, contains, uniqueItems...),
// strings (length, pattern, draft-07's content) and numbers (bounds and
// multipleOf, exactly).

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/format"
)

// checkFormat is the format assertion (format.Check): unknown formats are
// ignored, as the specification says.
var checkFormat = format.Check

func (v *validator) object(n *node, obj map[string]any, out *[]Issue, ev *evaluated) bool {
	ok := true
	fail := func() bool { ok = false; return out == nil }
	if n.minProps >= 0 && len(obj) < n.minProps {
		v.issue(out, "has fewer than minProperties (%d)", n.minProps)
		if fail() {
			return false
		}
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		v.issue(out, "has more than maxProperties (%d)", n.maxProps)
		if fail() {
			return false
		}
	}
	for _, name := range n.required {
		if _, present := obj[name]; !present {
			v.issueAt(out, name, "is required")
			if fail() {
				return false
			}
		}
	}
	for prop, names := range n.dependentRequired {
		if _, present := obj[prop]; !present {
			continue
		}
		for _, name := range names {
			if _, present := obj[name]; !present {
				v.issueAt(out, name, "is required when "+prop+" is present")
				if fail() {
					return false
				}
			}
		}
	}
	for prop, sub := range n.dependentSchemas {
		if _, present := obj[prop]; present && !v.inPlace(sub, obj, out, ev) && fail() {
			return false
		}
	}
	if n.properties != nil || n.patternProps != nil || n.additionalProps != nil {
		var notAllowed []string
		for name, val := range obj {
			evaluated := false
			if sub, found := n.properties[name]; found {
				evaluated = true
				if !v.child(sub, val, name, out) && fail() {
					return false
				}
			}
			for _, pp := range n.patternProps {
				if pp.re.MatchString(name) {
					evaluated = true
					if !v.child(pp.sch, val, name, out) && fail() {
						return false
					}
				}
			}
			if !evaluated && n.additionalProps != nil {
				evaluated = true
				if a := n.additionalProps; a.isBool && !a.boolVal {
					notAllowed = append(notAllowed, name)
					if fail() {
						return false
					}
				} else if !v.child(a, val, name, out) && fail() {
					return false
				}
			}
			if evaluated {
				ev.addProp(name)
			}
		}
		for _, name := range notAllowed {
			v.issueAt(out, name, "is not allowed (additionalProperties)")
		}
	}
	if n.propertyNames != nil {
		for name := range obj {
			if !v.validate(n.propertyNames, name, nil, nil) {
				v.issueAt(out, name, "is not an allowed property name")
				if fail() {
					return false
				}
			}
		}
	}
	return ok
}

func (v *validator) array(n *node, arr []any, out *[]Issue, ev *evaluated) bool {
	ok := true
	fail := func() bool { ok = false; return out == nil }
	if n.minItems >= 0 && len(arr) < n.minItems {
		v.issue(out, "has fewer than minItems (%d)", n.minItems)
		if fail() {
			return false
		}
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		v.issue(out, "has more than maxItems (%d)", n.maxItems)
		if fail() {
			return false
		}
	}
	if n.uniqueItems {
		if i, j := firstDuplicate(arr); i >= 0 {
			v.issue(out, "has duplicate items (%d and %d)", i, j)
			if fail() {
				return false
			}
		}
	}
	prefix := min(len(n.prefixItems), len(arr))
	for i := 0; i < prefix; i++ {
		if !v.child(n.prefixItems[i], arr[i], strconv.Itoa(i), out) && fail() {
			return false
		}
	}
	if ev != nil && prefix > ev.items {
		ev.items = prefix
	}
	if n.items != nil && len(arr) > prefix {
		if n.items.isBool && !n.items.boolVal && n.itemsAreAdditional {
			v.issue(out, "has %s more than allowed", plural.S(len(arr)-prefix, "item"))
			if fail() {
				return false
			}
		} else {
			for i := prefix; i < len(arr); i++ {
				if !v.child(n.items, arr[i], strconv.Itoa(i), out) && fail() {
					return false
				}
			}
		}
	}
	if n.items != nil && ev != nil {
		ev.allItems = true
	}
	if n.contains != nil {
		if !v.contains(n, arr, out, ev) && fail() {
			return false
		}
	}
	return ok
}

// contains counts the items that match. When too few do, the problems are
// those of the items that did not (what the user would fix), or a
// sentence when there are none.
func (v *validator) contains(n *node, arr []any, out *[]Issue, ev *evaluated) bool {
	matched := 0
	var misses []Issue
	for i, item := range arr {
		var sink *[]Issue
		if out != nil {
			sink = &misses
		}
		if v.child(n.contains, item, strconv.Itoa(i), sink) {
			matched++
			if ev != nil && n.dialect >= draft2020 {
				if ev.itemIdx == nil {
					ev.itemIdx = map[int]struct{}{}
				}
				ev.itemIdx[i] = struct{}{}
			}
		}
	}
	ok := true
	if n.minContains >= 0 {
		if matched < n.minContains {
			ok = false
			if len(misses) == 0 {
				v.issue(out, "has fewer than minContains (%d) matching items", n.minContains)
			}
		}
	} else if matched == 0 {
		ok = false
		if len(misses) == 0 {
			v.issue(out, "has no item matching contains")
		}
	}
	if !ok && out != nil {
		*out = append(*out, misses...)
	}
	if n.maxContains >= 0 && matched > n.maxContains {
		v.issue(out, "has more than maxContains (%d) matching items", n.maxContains)
		ok = false
	}
	return ok
}

func (v *validator) str(n *node, s string, out *[]Issue) bool {
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := utf8.RuneCountInString(s)
		if n.minLength >= 0 && length < n.minLength {
			v.issue(out, "is shorter than minLength (%d)", n.minLength)
			ok = false
		}
		if n.maxLength >= 0 && length > n.maxLength {
			v.issue(out, "is longer than maxLength (%d)", n.maxLength)
			ok = false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		v.issue(out, "does not match pattern %s", n.patternText)
		ok = false
	}
	if n.contentBase64 || n.contentJSON {
		content := []byte(s)
		if n.contentBase64 {
			decoded, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				v.issue(out, "is not base64 (contentEncoding)")
				return false
			}
			content = decoded
		}
		if n.contentJSON && !json.Valid(content) {
			v.issue(out, "is not JSON (contentMediaType application/json)")
			ok = false
		}
	}
	return ok
}

func (v *validator) number(n *node, inst any, out *[]Issue) bool {
	if n.minimum == nil && n.maximum == nil && n.exclMin == nil && n.exclMax == nil && n.multipleOf == nil {
		return true
	}
	d, _ := numberOf(inst)
	ok := true
	if n.minimum != nil && d.cmp(n.minimum.d) < 0 {
		v.issue(out, "is less than minimum (%s)", n.minimum.text)
		ok = false
	}
	if n.maximum != nil && d.cmp(n.maximum.d) > 0 {
		v.issue(out, "is greater than maximum (%s)", n.maximum.text)
		ok = false
	}
	if n.exclMin != nil && d.cmp(n.exclMin.d) <= 0 {
		v.issue(out, "is not greater than exclusiveMinimum (%s)", n.exclMin.text)
		ok = false
	}
	if n.exclMax != nil && d.cmp(n.exclMax.d) >= 0 {
		v.issue(out, "is not less than exclusiveMaximum (%s)", n.exclMax.text)
		ok = false
	}
	if n.multipleOf != nil && !n.multipleOf.d.isZero() && !d.isMultipleOf(n.multipleOf.d) {
		v.issue(out, "is not a multiple of %s", n.multipleOf.text)
		ok = false
	}
	return ok
}
