package schema

// Where a $ref leads. Before anything compiles, the document is walked
// once: every schema object's base URI ($id, or id in draft-04), every
// $anchor, $dynamicAnchor and $recursiveAnchor, and every embedded
// resource is recorded by the JSON pointer of its place in the document.
// A reference then resolves to a place in this one document, or not at
// all: mcpscope never loads anything from outside it (ErrRemoteRef). The
// meta-schemas of the five dialects are the one exception, answered by
// the shape checks (shape.go) rather than by loading them.

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// dialect is a JSON Schema draft: 4, 6, 7, 2019 (2019-09), 2020 (2020-12).
type dialect int

const (
	draft4    dialect = 4
	draft6    dialect = 6
	draft7    dialect = 7
	draft2019 dialect = 2019
	draft2020 dialect = 2020
)

// dialectOf names the dialect of a $schema URI, with or without the empty
// fragment and with either scheme.
func dialectOf(uri string) (dialect, bool) {
	u := strings.TrimSuffix(uri, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft/2020-12/schema":
		return draft2020, true
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, true
	case "json-schema.org/draft-07/schema":
		return draft7, true
	case "json-schema.org/draft-06/schema":
		return draft6, true
	case "json-schema.org/draft-04/schema":
		return draft4, true
	}
	return 0, false
}

// KnownDialect reports whether uri (a $schema value) names a dialect the
// validator understands: 2020-12, 2019-09, draft-07, -06 or -04, with or
// without the empty fragment and with either scheme.
func KnownDialect(uri string) bool {
	_, ok := dialectOf(uri)
	return ok
}

// resource is a schema resource: the document, or a subschema with its
// own $id.
type resource struct {
	uri             string // absolute, without a fragment
	loc             string // JSON pointer of its root in the document
	dialect         dialect
	dynamicAnchors  map[string]string // $dynamicAnchor name -> place
	recursiveAnchor bool              // 2019-09's $recursiveAnchor: true at its root

	// Filled by the compiler: the nodes dynamic references may land on.
	root         *node
	dynamicNodes map[string]*node
}

// docIndex is what the walk found.
type docIndex struct {
	doc       any
	resources map[string]*resource // by URI
	anchors   map[string]string    // "uri#name" -> place
	at        map[string]*resource // schema place -> the resource it is in
}

// subschemaKeywords hold one schema; arraySchemaKeywords a list of them;
// mapSchemaKeywords an object of them.
var (
	subschemaKeywords = []string{"additionalProperties", "additionalItems", "contains", "propertyNames", "not",
		"if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items"}
	arraySchemaKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	mapSchemaKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

func indexDocument(doc any, d dialect) (*docIndex, error) {
	ix := &docIndex{doc: doc, resources: map[string]*resource{}, anchors: map[string]string{}, at: map[string]*resource{}}
	root := &resource{uri: documentURL, loc: "", dialect: d}
	ix.resources[documentURL] = root
	if err := ix.walk(doc, "", root, 0); err != nil {
		return nil, err
	}
	return ix, nil
}

// maxSchemaDepth bounds how deep a schema may nest (the decoder allows
// 10,000 levels; no real schema comes near this).
const maxSchemaDepth = 2000

func (ix *docIndex) walk(v any, loc string, res *resource, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("%s: the schema nests more than %d levels deep", DisplayPointer(loc), maxSchemaDepth)
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			ix.at[loc] = res
		}
		return nil
	}
	d := res.dialect
	if s, ok := m["$schema"].(string); ok {
		if nd, ok := dialectOf(s); ok {
			d = nd
		}
	}
	idKey := "$id"
	if d == draft4 {
		idKey = "id"
	}
	_, hasRef := m["$ref"]
	if id, ok := m[idKey].(string); ok && !(d < draft2019 && hasRef) {
		if strings.HasPrefix(id, "#") {
			if d < draft2019 && len(id) > 1 {
				ix.anchors[res.uri+id] = loc
			}
		} else if abs, frag, err := resolveURI(res.uri, id); err == nil {
			nr := &resource{uri: abs, loc: loc, dialect: d}
			if loc == "" {
				// The root's own $id names the document; mcpscope's
				// made-up location stays an alias.
				ix.resources[documentURL] = nr
			}
			ix.resources[abs] = nr
			res = nr
			if frag != "" && d < draft2019 {
				ix.anchors[abs+"#"+frag] = loc
			}
		}
	} else if d != res.dialect && loc != "" {
		// A $schema without an $id only counts at a resource's root.
		d = res.dialect
	}
	if d != res.dialect && res.loc == loc {
		res.dialect = d
	}
	if d >= draft2019 {
		if a, ok := m["$anchor"].(string); ok {
			ix.anchors[res.uri+"#"+a] = loc
		}
		if d >= draft2020 {
			if a, ok := m["$dynamicAnchor"].(string); ok {
				ix.anchors[res.uri+"#"+a] = loc
				if res.dynamicAnchors == nil {
					res.dynamicAnchors = map[string]string{}
				}
				res.dynamicAnchors[a] = loc
			}
		}
		if b, ok := m["$recursiveAnchor"].(bool); ok && b && res.loc == loc {
			res.recursiveAnchor = true
		}
	}
	ix.at[loc] = res
	for _, kw := range subschemaKeywords {
		if sub, ok := m[kw]; ok {
			if _, isArr := sub.([]any); !isArr {
				if err := ix.walk(sub, loc+"/"+EscapeToken(kw), res, depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range arraySchemaKeywords {
		if arr, ok := m[kw].([]any); ok {
			for i, sub := range arr {
				if err := ix.walk(sub, loc+"/"+kw+"/"+strconv.Itoa(i), res, depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range mapSchemaKeywords {
		if obj, ok := m[kw].(map[string]any); ok {
			for name, sub := range obj {
				if _, isList := sub.([]any); isList {
					continue // dependencies' property lists
				}
				if err := ix.walk(sub, loc+"/"+EscapeToken(kw)+"/"+EscapeToken(name), res, depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveURI resolves ref against base: the absolute URI without its
// fragment, and the fragment (percent-decoded).
func resolveURI(base, ref string) (abs, frag string, err error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", err
	}
	u := b.ResolveReference(r)
	frag = u.Fragment
	u.Fragment, u.RawFragment = "", ""
	return u.String(), frag, nil
}

// resourceAt is the resource a place belongs to: the nearest recorded
// place at or above it.
func (ix *docIndex) resourceAt(loc string) *resource {
	for {
		if r, ok := ix.at[loc]; ok {
			return r
		}
		i := strings.LastIndexByte(loc, '/')
		if i < 0 {
			return ix.resources[documentURL]
		}
		loc = loc[:i]
	}
}

// errRef says a reference leads nowhere inside the document.
type refTarget struct {
	loc  string  // place in the document, when inside it
	meta dialect // a dialect's meta-schema, when it names one
}

// resolveRef finds where ref, written in res, leads.
func (ix *docIndex) resolveRef(res *resource, ref string) (refTarget, error) {
	abs, frag, err := resolveURI(res.uri, ref)
	if err != nil {
		return refTarget{}, fmt.Errorf("schema does not compile: $ref %q is not a URI reference: %v", ref, err)
	}
	r, ok := ix.resources[abs]
	if !ok {
		if d, ok := dialectOf(abs); ok && (frag == "" || frag == "/") {
			return refTarget{meta: d}, nil
		}
		return refTarget{}, fmt.Errorf("$ref %s: %w", joinFragment(abs, frag), ErrRemoteRef)
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		loc := r.loc + frag
		if _, ok := ix.lookup(loc); !ok {
			return refTarget{}, fmt.Errorf("schema does not compile: $ref %s: no such place in the document", ref)
		}
		return refTarget{loc: loc}, nil
	}
	loc, ok := ix.anchors[abs+"#"+frag]
	if !ok {
		return refTarget{}, fmt.Errorf("schema does not compile: $ref %s: no anchor %q in the document", ref, frag)
	}
	return refTarget{loc: loc}, nil
}

func joinFragment(abs, frag string) string {
	if frag == "" {
		return abs
	}
	return abs + "#" + frag
}

// lookup follows a JSON pointer from the document's root.
func (ix *docIndex) lookup(loc string) (any, bool) { return followPointer(ix.doc, loc) }

// followPointer follows the JSON pointer ptr (RFC 6901: "" is the value
// itself, ~1 and ~0 are escapes, an array index has no leading zero) into
// a decoded document. The validator's $ref and the form's share it, so
// they always land on the same place.
func followPointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
