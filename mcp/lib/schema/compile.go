package schema

// Compiling a schema document into a tree of nodes the validator walks:
// each keyword read once, numbers parsed, patterns compiled, references
// resolved to the node they lead to. Nodes are made once per place in the
// document, so a recursive schema ($ref cycles) compiles to a cyclic graph
// rather than forever.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/mcpscope/mcpscope/mcp/lib/schema/format"
)

// node is one compiled schema (an object or a boolean).
type node struct {
	loc     string // JSON pointer of the schema in the document
	res     *resource
	dialect dialect

	isBool, boolVal bool

	ref           *node
	refOnly       bool    // before 2019-09, $ref's siblings are ignored
	meta          dialect // the node is a dialect's meta-schema (shape checks)
	dynamicRef    *node
	dynamicName   string // $dynamicRef's anchor, when its static target has that $dynamicAnchor
	recursiveRef  *node
	recursiveBase bool // the static target of $recursiveRef has $recursiveAnchor: true

	types    uint8
	hasConst bool
	constVal any
	hasEnum  bool
	enum     []any
	format   string

	minimum, maximum, exclMin, exclMax, multipleOf *bound

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp
	patternText          string
	contentBase64        bool // draft-07 contentEncoding: base64
	contentJSON          bool // draft-07 contentMediaType: application/json

	minItems, maxItems       int
	uniqueItems              bool
	prefixItems              []*node
	items                    *node // every item after prefixItems
	itemsAreAdditional       bool  // items is draft<2020's additionalItems (its false says "more than allowed")
	contains                 *node
	minContains, maxContains int
	unevaluatedItems         *node

	minProps, maxProps   int
	required             []string
	properties           map[string]*node
	patternProps         []patternProp
	additionalProps      *node
	propertyNames        *node
	dependentRequired    map[string][]string
	dependentSchemas     map[string]*node
	unevaluatedProps     *node
	allOf, anyOf, oneOf  []*node
	not                  *node
	ifNode, then, elseNd *node
}

// bound is a number keyword's value, exact, with its text for messages.
type bound struct {
	d    decimal
	text string
}

type patternProp struct {
	re  *regexp.Regexp
	sch *node
}

// compiled is a whole compiled document.
type compiled struct {
	root *node
	// annotations: some node uses unevaluatedProperties or
	// unevaluatedItems, so validation must track what was evaluated.
	annotations bool
}

type compiler struct {
	ix          *docIndex
	nodes       map[string]*node
	annotations bool
}

// compileDocument checks doc's shape against its dialect, resolves its
// references and compiles it.
func compileDocument(doc any) (*compiled, error) {
	d := draft2020
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok {
			str, isStr := s.(string)
			if !isStr {
				return nil, fmt.Errorf("schema does not compile: /$schema must be a string")
			}
			nd, known := dialectOf(str)
			if !known {
				return nil, fmt.Errorf("$schema %s: %w", str, ErrRemoteRef)
			}
			d = nd
		}
	}
	ix, err := indexDocument(doc, d)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	if err := checkShape(doc, "", d, 0); err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	c := &compiler{ix: ix, nodes: map[string]*node{}}
	root, err := c.compile("")
	if err != nil {
		return nil, err
	}
	// The places dynamic references may land on at run time.
	for _, r := range ix.resources {
		if r.recursiveAnchor {
			if r.root, err = c.compile(r.loc); err != nil {
				return nil, err
			}
		}
		for name, loc := range r.dynamicAnchors {
			n, err := c.compile(loc)
			if err != nil {
				return nil, err
			}
			if r.dynamicNodes == nil {
				r.dynamicNodes = map[string]*node{}
			}
			r.dynamicNodes[name] = n
		}
	}
	return &compiled{root: root, annotations: c.annotations}, nil
}

// compile makes (or finds) the node for the schema at loc.
func (c *compiler) compile(loc string) (*node, error) {
	if n, ok := c.nodes[loc]; ok {
		return n, nil
	}
	v, ok := c.ix.lookup(loc)
	if !ok {
		return nil, fmt.Errorf("schema does not compile: %s: no schema there", DisplayPointer(loc))
	}
	res := c.ix.resourceAt(loc)
	n := &node{loc: loc, res: res, dialect: res.dialect, minLength: -1, maxLength: -1,
		minItems: -1, maxItems: -1, minContains: -1, maxContains: -1, minProps: -1, maxProps: -1}
	c.nodes[loc] = n
	switch s := v.(type) {
	case bool:
		n.isBool, n.boolVal = true, s
		return n, nil
	case map[string]any:
		if err := c.fill(n, s); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, fmt.Errorf("schema does not compile: %s must be an object or a boolean", DisplayPointer(loc))
}

func (c *compiler) sub(loc, kw string) (*node, error) { return c.compile(loc + "/" + EscapeToken(kw)) }

func (c *compiler) list(loc, kw string, arr []any) ([]*node, error) {
	out := make([]*node, len(arr))
	for i := range arr {
		n, err := c.compile(loc + "/" + EscapeToken(kw) + "/" + strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (c *compiler) schemaMap(loc, kw string, obj map[string]any) (map[string]*node, error) {
	out := make(map[string]*node, len(obj))
	for name := range obj {
		n, err := c.compile(loc + "/" + EscapeToken(kw) + "/" + EscapeToken(name))
		if err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, nil
}

func (c *compiler) target(n *node, ref string) (*node, error) {
	t, err := c.ix.resolveRef(n.res, ref)
	if err != nil {
		return nil, err
	}
	if t.meta != 0 {
		return &node{meta: t.meta, res: n.res, dialect: t.meta, minLength: -1, maxLength: -1,
			minItems: -1, maxItems: -1, minContains: -1, maxContains: -1, minProps: -1, maxProps: -1}, nil
	}
	return c.compile(t.loc)
}

func (c *compiler) fill(n *node, m map[string]any) error {
	d, loc := n.dialect, n.loc
	var err error
	if ref, ok := m["$ref"].(string); ok {
		if n.ref, err = c.target(n, ref); err != nil {
			return err
		}
		if d < draft2019 {
			n.refOnly = true
			return nil
		}
	}
	if d == draft2020 {
		if ref, ok := m["$dynamicRef"].(string); ok {
			if n.dynamicRef, err = c.target(n, ref); err != nil {
				return err
			}
			// Dynamic only when the static target carries the same
			// $dynamicAnchor (otherwise it behaves as $ref).
			if _, frag, err := resolveURI(n.res.uri, ref); err == nil && frag != "" {
				if t, ok := c.ix.lookup(n.dynamicRef.loc); ok && n.dynamicRef.meta == 0 {
					if tm, ok := t.(map[string]any); ok && tm["$dynamicAnchor"] == frag {
						n.dynamicName = frag
					}
				}
			}
		}
	}
	if d == draft2019 {
		if ref, ok := m["$recursiveRef"].(string); ok {
			if n.recursiveRef, err = c.target(n, ref); err != nil {
				return err
			}
			if t, ok := c.ix.lookup(n.recursiveRef.loc); ok && n.recursiveRef.meta == 0 {
				if tm, ok := t.(map[string]any); ok && tm["$recursiveAnchor"] == true {
					n.recursiveBase = true
				}
			}
		}
	}
	switch t := m["type"].(type) {
	case string:
		n.types = typeBit(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				n.types |= typeBit(s)
			}
		}
	}
	if d >= draft6 {
		if v, ok := m["const"]; ok {
			n.hasConst, n.constVal = true, v
		}
	}
	if e, ok := m["enum"].([]any); ok {
		n.hasEnum, n.enum = true, e
	}
	if f, ok := m["format"].(string); ok {
		n.format = f
	}
	c.fillNumbers(n, m)
	n.minLength = intKeywordOf(m, "minLength")
	n.maxLength = intKeywordOf(m, "maxLength")
	if p, ok := m["pattern"].(string); ok {
		if n.pattern, err = format.Regex(p); err != nil {
			return fmt.Errorf("schema does not compile: %s/pattern is not a valid regular expression: %v", loc, err)
		}
		n.patternText = p
	}
	if d == draft7 {
		n.contentBase64 = m["contentEncoding"] == "base64"
		n.contentJSON = m["contentMediaType"] == "application/json"
	}
	if err := c.fillArray(n, m); err != nil {
		return err
	}
	if err := c.fillObject(n, m); err != nil {
		return err
	}
	return c.fillApplicators(n, m)
}

func intKeywordOf(m map[string]any, kw string) int {
	v, ok := m[kw]
	if !ok {
		return -1
	}
	d, ok := numberOf(v)
	if !ok || d.neg {
		return -1
	}
	if d.isZero() {
		return 0
	}
	if !d.isInt() || d.exp > 19 {
		return int(^uint(0) >> 1) // beyond any instance's length
	}
	n, err := strconv.ParseInt(d.digits+zeros(d.exp-len(d.digits)), 10, 64)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return int(n)
}

func zeros(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func boundOf(m map[string]any, kw string) *bound {
	v, ok := m[kw]
	if !ok {
		return nil
	}
	d, ok := numberOf(v)
	if !ok {
		return nil
	}
	text := fmt.Sprint(v)
	return &bound{d: d, text: d.display(text)}
}

func (c *compiler) fillNumbers(n *node, m map[string]any) {
	n.minimum, n.maximum = boundOf(m, "minimum"), boundOf(m, "maximum")
	n.multipleOf = boundOf(m, "multipleOf")
	if n.dialect == draft4 {
		// draft-04: exclusiveMinimum and exclusiveMaximum are booleans
		// that make minimum and maximum exclusive.
		if m["exclusiveMinimum"] == true && n.minimum != nil {
			n.exclMin, n.minimum = n.minimum, nil
		}
		if m["exclusiveMaximum"] == true && n.maximum != nil {
			n.exclMax, n.maximum = n.maximum, nil
		}
		return
	}
	n.exclMin, n.exclMax = boundOf(m, "exclusiveMinimum"), boundOf(m, "exclusiveMaximum")
}

func (c *compiler) fillArray(n *node, m map[string]any) error {
	d, loc := n.dialect, n.loc
	var err error
	n.minItems, n.maxItems = intKeywordOf(m, "minItems"), intKeywordOf(m, "maxItems")
	n.uniqueItems = m["uniqueItems"] == true
	if d >= draft2020 {
		if arr, ok := m["prefixItems"].([]any); ok {
			if n.prefixItems, err = c.list(loc, "prefixItems", arr); err != nil {
				return err
			}
		}
		if _, ok := m["items"]; ok {
			if n.items, err = c.sub(loc, "items"); err != nil {
				return err
			}
		}
	} else {
		switch items := m["items"].(type) {
		case []any:
			if n.prefixItems, err = c.list(loc, "items", items); err != nil {
				return err
			}
			if _, ok := m["additionalItems"]; ok {
				if n.items, err = c.sub(loc, "additionalItems"); err != nil {
					return err
				}
				n.itemsAreAdditional = true
			}
		case nil:
		default:
			if n.items, err = c.sub(loc, "items"); err != nil {
				return err
			}
		}
	}
	if d >= draft6 {
		if _, ok := m["contains"]; ok {
			if n.contains, err = c.sub(loc, "contains"); err != nil {
				return err
			}
			if d >= draft2019 {
				n.minContains, n.maxContains = intKeywordOf(m, "minContains"), intKeywordOf(m, "maxContains")
			}
		}
	}
	if d >= draft2019 {
		if _, ok := m["unevaluatedItems"]; ok {
			if n.unevaluatedItems, err = c.sub(loc, "unevaluatedItems"); err != nil {
				return err
			}
			c.annotations = true
		}
	}
	return nil
}

func (c *compiler) fillObject(n *node, m map[string]any) error {
	d, loc := n.dialect, n.loc
	var err error
	n.minProps, n.maxProps = intKeywordOf(m, "minProperties"), intKeywordOf(m, "maxProperties")
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				n.required = append(n.required, s)
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if n.properties, err = c.schemaMap(loc, "properties", props); err != nil {
			return err
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		names := make([]string, 0, len(pp))
		for p := range pp {
			names = append(names, p)
		}
		sort.Strings(names)
		for _, p := range names {
			re, err := format.Regex(p)
			if err != nil {
				return fmt.Errorf("schema does not compile: %s/patternProperties/%s is not a valid regular expression: %v", loc, EscapeToken(p), err)
			}
			sch, err := c.compile(loc + "/patternProperties/" + EscapeToken(p))
			if err != nil {
				return err
			}
			n.patternProps = append(n.patternProps, patternProp{re, sch})
		}
	}
	if _, ok := m["additionalProperties"]; ok {
		if n.additionalProps, err = c.sub(loc, "additionalProperties"); err != nil {
			return err
		}
	}
	if d >= draft6 {
		if _, ok := m["propertyNames"]; ok {
			if n.propertyNames, err = c.sub(loc, "propertyNames"); err != nil {
				return err
			}
		}
	}
	addRequired := func(name string, list []any) {
		if n.dependentRequired == nil {
			n.dependentRequired = map[string][]string{}
		}
		names := []string{}
		for _, x := range list {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		n.dependentRequired[name] = names
	}
	addSchema := func(kw, name string) error {
		if n.dependentSchemas == nil {
			n.dependentSchemas = map[string]*node{}
		}
		sch, err := c.compile(loc + "/" + kw + "/" + EscapeToken(name))
		n.dependentSchemas[name] = sch
		return err
	}
	// dependencies split into dependentRequired and dependentSchemas in
	// 2019-09; the old keyword still works there, as other validators
	// keep it.
	if deps, ok := m["dependencies"].(map[string]any); ok {
		for name, dep := range deps {
			if list, ok := dep.([]any); ok {
				addRequired(name, list)
			} else if err := addSchema("dependencies", name); err != nil {
				return err
			}
		}
	}
	if d >= draft2019 {
		if deps, ok := m["dependentRequired"].(map[string]any); ok {
			for name, dep := range deps {
				if list, ok := dep.([]any); ok {
					addRequired(name, list)
				}
			}
		}
		if deps, ok := m["dependentSchemas"].(map[string]any); ok {
			for name := range deps {
				if err := addSchema("dependentSchemas", name); err != nil {
					return err
				}
			}
		}
		if _, ok := m["unevaluatedProperties"]; ok {
			if n.unevaluatedProps, err = c.sub(loc, "unevaluatedProperties"); err != nil {
				return err
			}
			c.annotations = true
		}
	}
	return nil
}

func (c *compiler) fillApplicators(n *node, m map[string]any) error {
	d, loc := n.dialect, n.loc
	var err error
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		arr, ok := m[kw].([]any)
		if !ok {
			continue
		}
		nodes, err := c.list(loc, kw, arr)
		if err != nil {
			return err
		}
		switch kw {
		case "allOf":
			n.allOf = nodes
		case "anyOf":
			n.anyOf = nodes
		default:
			n.oneOf = nodes
		}
	}
	if _, ok := m["not"]; ok {
		if n.not, err = c.sub(loc, "not"); err != nil {
			return err
		}
	}
	if d >= draft7 {
		if _, ok := m["if"]; ok {
			if n.ifNode, err = c.sub(loc, "if"); err != nil {
				return err
			}
			if _, ok := m["then"]; ok {
				if n.then, err = c.sub(loc, "then"); err != nil {
					return err
				}
			}
			if _, ok := m["else"]; ok {
				if n.elseNd, err = c.sub(loc, "else"); err != nil {
					return err
				}
			}
		}
	}
	// Definitions compile too, so a reference in one that leads outside
	// the document is refused even when nothing uses it.
	for _, kw := range []string{"$defs", "definitions"} {
		if defs, ok := m[kw].(map[string]any); ok {
			if _, err := c.schemaMap(loc, kw, defs); err != nil {
				return err
			}
		}
	}
	return nil
}
