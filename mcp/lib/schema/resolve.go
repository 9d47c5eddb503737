package schema

import (
	"net/url"
	"strings"
)

// maxRefHops bounds $ref chains so a cycle ($ref pointing at itself) ends.
const maxRefHops = 32

// Resolve returns the subschema node means, with local $refs followed and
// the $ref's sibling keywords laid over the target (2020-12 allows them).
// A boolean schema becomes {} (true) or {"not": {}} (false). Refs it cannot
// follow are left in place; the validator has already refused any remote
// one, so callers may treat what remains as "any JSON".
func (s *Schema) Resolve(node any) map[string]any {
	for hop := 0; hop < maxRefHops; hop++ {
		m, ok := node.(map[string]any)
		if !ok {
			if b, isBool := node.(bool); isBool && !b {
				return map[string]any{"not": map[string]any{}}
			}
			return map[string]any{}
		}
		ref, hasRef := m["$ref"].(string)
		if !hasRef {
			return m
		}
		target, found := s.lookup(ref)
		if !found {
			return m
		}
		tm, isMap := target.(map[string]any)
		if !isMap {
			node = target
			continue
		}
		if len(m) == 1 {
			node = tm
			continue
		}
		merged := make(map[string]any, len(tm)+len(m))
		for k, v := range tm {
			merged[k] = v
		}
		for k, v := range m {
			if k != "$ref" {
				merged[k] = v
			}
		}
		if _, again := tm["$ref"]; !again {
			return merged
		}
		merged["$ref"] = tm["$ref"]
		node = merged
	}
	return map[string]any{}
}

// Root is the resolved top-level schema.
func (s *Schema) Root() map[string]any { return s.Resolve(s.doc) }

// lookup finds a local reference: "#", "#/json/pointer" or "#anchor".
func (s *Schema) lookup(ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		// "schema.json#/..." style refs to the document's own URL.
		if i := strings.IndexByte(ref, '#'); i >= 0 && (ref[:i] == documentURL || ref[:i] == "") {
			frag = ref[i+1:]
		} else {
			return nil, false
		}
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if frag == "" {
		return s.doc, true
	}
	if !strings.HasPrefix(frag, "/") {
		return findAnchor(s.doc, frag)
	}
	return followPointer(s.doc, frag)
}

func findAnchor(node any, name string) (any, bool) {
	switch n := node.(type) {
	case map[string]any:
		if a, _ := n["$anchor"].(string); a == name {
			return n, true
		}
		if id, _ := n["$id"].(string); id == "#"+name { // draft-07 style anchor
			return n, true
		}
		for _, v := range n {
			if found, ok := findAnchor(v, name); ok {
				return found, true
			}
		}
	case []any:
		for _, v := range n {
			if found, ok := findAnchor(v, name); ok {
				return found, true
			}
		}
	}
	return nil, false
}

// Types lists a resolved schema's "type" keyword as a slice (empty when it
// has none).
func Types(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
