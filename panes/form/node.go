package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
	"github.com/mcpscope/mcpscope/mcp/lib/schema/format"
)

// kind is what a node draws as.
type kind int

const (
	kindString  kind = iota
	kindNumber       // parsed strictly as a JSON number
	kindInteger      // parsed strictly as an integer
	kindBool         // a toggle
	kindEnum         // one of fixed values: enum, const, oneOf of titled consts
	kindMulti        // an array of enum values: pick several
	kindObject       // properties, plus key/value rows when additionalProperties allows
	kindArray        // items added, removed and reordered
	kindChoice       // oneOf/anyOf or a multi-type union: pick a branch
	kindNull         // type "null": the only value is null
	kindRaw          // JSON text: what the form cannot draw, or any JSON at all
)

// presence is whether a node's value is in the output.
type presence int

const (
	present presence = iota
	omitted          // optional properties start here unless they have a default
	isNull           // null, where the schema allows it
)

func (p presence) String() string {
	switch p {
	case omitted:
		return "omitted"
	case isNull:
		return "null"
	}
	return "present"
}

// option is one value of an enum or multi-select, with what to show.
type option struct {
	value any
	label string
}

// branch is one alternative of a choice.
type branch struct {
	label  string
	schema map[string]any // the branch merged with its siblings
}

// node is one value of the form's tree. The tree mirrors the JSON value,
// not the schema: an array has one node per item, a choice holds the node
// of the branch in use.
type node struct {
	kind   kind
	sch    map[string]any
	name   string // property name or map key ("" for the root and items)
	parent *node
	ptr    string // JSON pointer, set by flatten

	required bool // a required property; items, branches and the root are always required
	nullable bool
	state    presence

	text    string // string, number, integer and raw nodes
	on      bool
	options []option
	sel     int // enum: index into options, -1 for nothing yet
	picked  []bool

	props   []*node // object: declared properties in schema order
	entries []*node // object: key/value rows (additionalProperties or unknown keys)
	// extra is the schema of a key that matches no pattern: the
	// additionalProperties schema, true when there is none (JSON Schema
	// allows any other key by default), nil when it is false.
	extra    any
	patterns []keyPattern // object: patternProperties, in the schema's order
	// offersKeys is an object that takes key/value rows from the user
	// ("+ add key", alt+a): one that gives additionalProperties or
	// patternProperties, or a nested one that declares no properties
	// (mcp-fetch-server's headers). An object with declared properties
	// and nothing said about others takes further keys in raw JSON only,
	// and a tool's arguments object with no properties takes none.
	offersKeys bool
	items      []*node
	itemSch    any // array: the items schema

	branches []branch
	branch   int
	built    []*node // choice: one node per branch, built on first use so input survives switching
	keyword  string  // choice: "oneOf", "anyOf" or "type"

	collapsed bool
	note      string // raw: why this part is JSON text
	isEntry   bool   // a key/value row: its name is editable
	freshKey  bool   // an added row whose key is still the name it was given: typing replaces it
	// free is a value the schema does not constrain: JSON text, or a
	// string (the first choice for a key/value row: headers, labels), and
	// the Branch key switches between the two keeping the text.
	free bool
}

// keyPattern is one patternProperties entry: keys it matches take its
// schema.
type keyPattern struct {
	src string
	sch any
}

// maxDepth stops recursive schemas (a tree node holding tree nodes) from
// building forever; nothing deeper than this is built until it is needed.
const maxDepth = 40

// unsupportedKeywords are the keywords the form cannot turn into fields. A
// schema using one of them is edited as JSON text; validation still runs
// against the real schema, so nothing is lost but comfort.
var unsupportedKeywords = []string{"if", "not", "dependentSchemas", "dependencies",
	"prefixItems", "additionalItems", "$dynamicRef", "$recursiveRef", "unevaluatedItems"}

// builder turns schemas into nodes.
type builder struct {
	s *schema.Schema
	// patterns are the patternProperties compiled so far, by source: a
	// pattern is compiled when a key is first matched against it (a
	// server's pattern may be large), once per form; nil when it does not
	// compile, and then it matches nothing here (the validator says the
	// schema is broken).
	patterns map[string]*regexp.Regexp
}

func newBuilder(s *schema.Schema) builder {
	return builder{s: s, patterns: map[string]*regexp.Regexp{}}
}

func (b builder) matches(pattern, key string) bool {
	re, done := b.patterns[pattern]
	if !done {
		re, _ = format.Regex(pattern)
		b.patterns[pattern] = re
	}
	return re != nil && re.MatchString(key)
}

func (b builder) build(raw any, parent *node, name string, required bool) *node {
	m := b.s.MergeAllOf(b.s.Resolve(raw))
	n := &node{sch: m, parent: parent, name: name, required: required, sel: -1}
	depth := 0
	for p := parent; p != nil; p = p.parent {
		depth++
	}
	if depth > maxDepth {
		n.kind, n.note = kindRaw, "nested too deep for the form"
		return n
	}
	b.fill(n, m)
	b.finish(n)
	return n
}

// fill decides the node's kind from its (resolved) schema m.
func (b builder) fill(n *node, m map[string]any) {
	n.sch = m
	if kw := unsupported(m); kw != "" {
		n.kind, n.note = kindRaw, "uses "+kw+", which the form cannot draw"
		return
	}
	types := schema.Types(m)
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			n.nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	switch {
	case m["const"] != nil || hasKey(m, "const"):
		n.kind, n.options = kindEnum, []option{{value: m["const"], label: showJSON(m["const"])}}
	case m["enum"] != nil:
		n.kind = kindEnum
		labels := enumNames(m)
		for i, v := range asSlice(m["enum"]) {
			if v == nil {
				n.nullable = true
			}
			label := showJSON(v)
			if i < len(labels) && labels[i] != "" {
				label = labels[i]
			}
			n.options = append(n.options, option{value: v, label: label})
		}
	case titledConsts(b.s, m) != nil:
		n.kind, n.options = kindEnum, titledConsts(b.s, m)
	case m["oneOf"] != nil || m["anyOf"] != nil:
		b.buildChoice(n)
	case len(nonNull) > 1:
		n.kind, n.keyword = kindChoice, "type"
		for _, t := range nonNull {
			sub := map[string]any{}
			for k, v := range m {
				sub[k] = v
			}
			sub["type"] = t
			n.branches = append(n.branches, branch{label: t, schema: sub})
		}
		n.built = make([]*node, len(n.branches))
	default:
		typ := ""
		if len(nonNull) == 1 {
			typ = nonNull[0]
		} else if len(types) == 0 {
			switch {
			case m["properties"] != nil || m["additionalProperties"] != nil || m["patternProperties"] != nil || m["required"] != nil:
				typ = "object"
			case m["items"] != nil:
				typ = "array"
			}
		} else {
			typ = "null"
		}
		b.buildTyped(n, typ)
	}
}

func (b builder) buildTyped(n *node, typ string) {
	m := n.sch
	switch typ {
	case "object":
		n.kind = kindObject
		req := map[string]bool{}
		for _, r := range schema.RequiredNames(m) {
			req[r] = true
		}
		props, _ := m["properties"].(map[string]any)
		for _, name := range b.s.Keys(props) {
			n.props = append(n.props, b.build(props[name], n, name, req[name]))
		}
		extra, said := m["additionalProperties"]
		switch {
		case !said:
			n.extra = true
		case extra != false:
			n.extra = extra
		}
		pp, _ := m["patternProperties"].(map[string]any)
		for _, p := range b.s.Keys(pp) {
			n.patterns = append(n.patterns, keyPattern{src: p, sch: pp[p]})
		}
		n.offersKeys = (said && extra != false) || len(n.patterns) > 0 ||
			(n.extra != nil && len(n.props) == 0 && n.parent != nil)
	case "array":
		n.itemSch = m["items"]
		if opts := b.itemOptions(n.itemSch); opts != nil {
			n.kind, n.options = kindMulti, opts
			n.picked = make([]bool, len(opts))
			return
		}
		n.kind = kindArray
		if _, isTuple := n.itemSch.([]any); isTuple {
			n.kind, n.note = kindRaw, "uses tuple items, which the form cannot draw"
		}
	case "string":
		n.kind = kindString
	case "number":
		n.kind = kindNumber
	case "integer":
		n.kind = kindInteger
	case "boolean":
		n.kind = kindBool
	case "null":
		n.kind = kindNull
		n.nullable = true
	default:
		n.kind, n.note, n.free = kindRaw, "any JSON value", true
	}
}

// itemOptions returns the choices of an array whose items are an enum (or
// titled consts): such an array is a multi-select.
func (b builder) itemOptions(items any) []option {
	if items == nil {
		return nil
	}
	m := b.s.Resolve(items)
	if e, ok := m["enum"].([]any); ok {
		labels := enumNames(m)
		out := make([]option, len(e))
		for i, v := range e {
			out[i] = option{value: v, label: showJSON(v)}
			if i < len(labels) && labels[i] != "" {
				out[i].label = labels[i]
			}
		}
		return out
	}
	return titledConsts(b.s, m)
}

func (b builder) buildChoice(n *node) {
	kw := "oneOf"
	list := asSlice(n.sch["oneOf"])
	if list == nil {
		kw, list = "anyOf", asSlice(n.sch["anyOf"])
	}
	// A union with null is a nullable field, not a choice: anyOf [X, null].
	var real []any
	for _, br := range list {
		if t := schema.Types(b.s.Resolve(br)); len(t) == 1 && t[0] == "null" {
			n.nullable = true
			continue
		}
		real = append(real, br)
	}
	if len(real) == 1 {
		b.fill(n, b.s.MergeBranch(n.sch, kw, real[0]))
		n.nullable = true
		return
	}
	if len(real) == 0 {
		// {"oneOf":[]}, {"oneOf":""}, or only null: no branch to pick. The
		// field is what the keywords beside it say (found by fuzzing: a
		// choice of no branch panicked the form).
		rest := make(map[string]any, len(n.sch))
		for k, v := range n.sch {
			if k != "oneOf" && k != "anyOf" {
				rest[k] = v
			}
		}
		b.fill(n, rest)
		return
	}
	n.kind, n.keyword = kindChoice, kw
	for i, br := range real {
		merged := b.s.MergeBranch(n.sch, kw, br)
		n.branches = append(n.branches, branch{label: branchLabel(b.s.Resolve(br), merged, i), schema: merged})
	}
	n.built = make([]*node, len(n.branches))
}

// finish applies the parts every kind shares: the starting presence and
// the default.
func (b builder) finish(n *node) {
	if !n.required && n.parent != nil && n.parent.kind == kindObject {
		n.state = omitted
	}
	if d, ok := n.sch["default"]; ok {
		if n.setValue(b, d) {
			n.state = present
			if d == nil {
				n.state = isNull
			}
		}
	} else if n.state == present {
		n.prepare(b)
	}
}

// prepare fills what a present value needs before the user touches it: a
// choice builds its first branch, an array its minItems, a required
// boolean shows false.
func (n *node) prepare(b builder) {
	switch n.kind {
	case kindChoice:
		n.activeNode(b)
	case kindArray:
		// A server's minItems is capped: the form would otherwise build
		// millions of rows (the validator still reports the shortfall).
		for len(n.items) < min(minItems(n.sch), schema.MaxMinimalItems) {
			n.addItem(b, len(n.items))
		}
	case kindEnum:
		if len(n.options) == 1 {
			n.sel = 0
		}
	}
}

// activeNode is the node of the branch in use, built on first use.
func (n *node) activeNode(b builder) *node {
	if n.kind != kindChoice || len(n.branches) == 0 {
		return nil
	}
	if n.built[n.branch] == nil {
		c := b.build(n.branches[n.branch].schema, n, "", true)
		c.name = n.name
		n.built[n.branch] = c
	}
	return n.built[n.branch]
}

// within reports whether n is anc or lies inside it.
func (n *node) within(anc *node) bool {
	for ; n != nil; n = n.parent {
		if n == anc {
			return true
		}
	}
	return false
}

func (n *node) addItem(b builder, at int) *node {
	item := b.build(n.itemSch, n, "", true)
	n.items = append(n.items, nil)
	copy(n.items[at+1:], n.items[at:])
	n.items[at] = item
	return item
}

func (n *node) addEntry(b builder, name string) *node {
	e := n.newEntry(b, name)
	n.entries = append(n.entries, e)
	return e
}

// newEntry builds the value of key name: the schema of the patterns it
// matches, else the additionalProperties one. A key the schema refuses
// (additionalProperties false, no pattern matching) still gets a row; the
// validator says why it does not belong.
func (n *node) newEntry(b builder, name string) *node {
	e := b.build(n.schemaForKey(b, name), n, name, true)
	e.isEntry = true
	if e.free {
		e.kind = kindString
	}
	return e
}

func (n *node) schemaForKey(b builder, name string) any {
	var matched []any
	for _, p := range n.patterns {
		if b.matches(p.src, name) {
			matched = append(matched, p.sch)
		}
	}
	switch {
	case len(matched) == 1:
		return matched[0]
	case len(matched) > 1:
		return map[string]any{"allOf": matched}
	case n.extra != nil:
		return n.extra
	}
	return true
}

// keySchemaID names the schemas key name takes its value from, so a
// rename can tell whether the value must be built again.
func (n *node) keySchemaID(b builder, name string) string {
	id := ""
	for i, p := range n.patterns {
		if b.matches(p.src, name) {
			id += strconv.Itoa(i) + ","
		}
	}
	return id
}

// value is the node's JSON value and whether it belongs in the output.
// Text that does not parse is sent as the string typed, so "send anyway"
// sends exactly what the user sees; localIssues reports it.
func (n *node) value() (any, bool) { return n.valueIn(false) }

// wireValue is value in the form's order, for sending: objects keep their
// properties in the schema's order (then added keys in the order added)
// and JSON typed into a raw field keeps its own order, where a Go map
// would sort them.
func (n *node) wireValue() (any, bool) { return n.valueIn(true) }

func (n *node) valueIn(ordered bool) (any, bool) {
	switch n.state {
	case omitted:
		return nil, false
	case isNull:
		return nil, true
	}
	switch n.kind {
	case kindString:
		return n.text, true
	case kindNumber, kindInteger:
		if strings.TrimSpace(n.text) == "" {
			return nil, false
		}
		if num, ok := parseNumber(n.text, n.kind == kindInteger); ok {
			return num, true
		}
		return n.text, true
	case kindBool:
		return n.on, true
	case kindEnum:
		if n.sel < 0 || n.sel >= len(n.options) {
			return nil, false
		}
		return n.options[n.sel].value, true
	case kindMulti:
		out := []any{}
		for i, o := range n.options {
			if n.picked[i] {
				out = append(out, o.value)
			}
		}
		return out, true
	case kindObject:
		if ordered {
			var out orderedObject
			for _, p := range n.props {
				if v, ok := p.valueIn(true); ok {
					out.set(p.name, v)
				}
			}
			for _, e := range n.entries {
				if v, ok := e.valueIn(true); ok {
					out.set(e.name, v)
				}
			}
			return out, true
		}
		out := make(map[string]any, len(n.props)+len(n.entries))
		for _, p := range n.props {
			if v, ok := p.value(); ok {
				out[p.name] = v
			}
		}
		for _, e := range n.entries {
			if v, ok := e.value(); ok {
				out[e.name] = v
			}
		}
		return out, true
	case kindArray:
		out := make([]any, 0, len(n.items))
		for _, it := range n.items {
			v, _ := it.valueIn(ordered)
			out = append(out, v)
		}
		return out, true
	case kindChoice:
		if n.branch >= len(n.built) || n.built[n.branch] == nil { // a choice of no branch ({"oneOf":[]}) has no value
			return nil, false
		}
		return n.built[n.branch].valueIn(ordered)
	case kindNull:
		return nil, true
	case kindRaw:
		if strings.TrimSpace(n.text) == "" {
			return nil, false
		}
		v, err := schema.Decode([]byte(n.text))
		if err != nil {
			return n.text, true
		}
		if ordered {
			var b bytes.Buffer
			if json.Compact(&b, []byte(n.text)) == nil {
				return json.RawMessage(b.Bytes()), true
			}
		}
		return v, true
	}
	return nil, false
}

// orderedObject is a JSON object that keeps its keys in the order set; a
// key set twice keeps its first place and its last value, as a map would.
type orderedObject struct {
	keys []string
	vals map[string]any
}

func (o *orderedObject) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, seen := o.vals[k]; !seen {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// MarshalJSON writes the object with its keys in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// localIssue is what the form knows before the schema is consulted: text
// that does not parse as the field's type.
func (n *node) localIssue() string {
	if n.state != present {
		return ""
	}
	switch n.kind {
	case kindNumber, kindInteger:
		if strings.TrimSpace(n.text) == "" {
			return ""
		}
		if _, ok := parseNumber(n.text, n.kind == kindInteger); !ok {
			if n.kind == kindInteger {
				return "is not an integer"
			}
			return "is not a number"
		}
	case kindRaw:
		if strings.TrimSpace(n.text) == "" {
			return ""
		}
		if _, err := schema.Decode([]byte(n.text)); err != nil {
			return "is not valid JSON: " + jsonError(n.text, err)
		}
	}
	return ""
}

// parseNumber accepts exactly JSON's number syntax ("1e3" yes, "0x10",
// " 1", "+1" and "1." no) and gives the number as it is sent: exact and in
// its plainest form (schema.CanonicalNumber: 1e3 is 1000), so a server
// that reads integers strictly gets one. Integers also accept 1.0 and
// 1e2, which JSON Schema counts as integers; 1.5e0 is not one.
func parseNumber(s string, integer bool) (json.Number, bool) {
	text, isInt, ok := schema.CanonicalNumber(s)
	if !ok || (integer && !isInt) {
		return "", false
	}
	return json.Number(text), true
}

// setValue shows v in the node (history, the raw view, defaults, initial
// arguments). It reports false when v does not fit the node's kind; the
// caller then turns the node into JSON text so nothing is lost.
func (n *node) setValue(b builder, v any) bool {
	if n.free {
		// Whatever v is fits: a key/value row (or a field switched to
		// text) shows a string as text, anything else as JSON.
		if s, ok := v.(string); ok && (n.isEntry || n.kind == kindString) {
			n.kind, n.text, n.state = kindString, s, present
			return true
		}
		n.kind = kindRaw
	}
	if v == nil && n.kind != kindRaw && n.kind != kindEnum {
		if n.nullable || n.kind == kindNull {
			n.state = isNull
			return true
		}
		return false
	}
	n.state = present
	switch n.kind {
	case kindString:
		s, ok := v.(string)
		n.text = s
		return ok
	case kindNumber, kindInteger:
		num, ok := asNumber(v)
		if !ok {
			return false
		}
		if _, ok := parseNumber(num, n.kind == kindInteger); !ok {
			return false
		}
		n.text = num
		return true
	case kindBool:
		bv, ok := v.(bool)
		n.on = bv
		return ok
	case kindEnum:
		for i, o := range n.options {
			if sameJSON(o.value, v) {
				n.sel = i
				return true
			}
		}
		if v == nil && n.nullable {
			n.state = isNull
			return true
		}
		return false
	case kindMulti:
		list, ok := v.([]any)
		if !ok {
			return false
		}
		picked := make([]bool, len(n.options))
		for _, x := range list {
			found := false
			for i, o := range n.options {
				if sameJSON(o.value, x) {
					picked[i], found = true, true
				}
			}
			if !found {
				return false
			}
		}
		n.picked = picked
		return true
	case kindObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		known := map[string]bool{}
		for _, p := range n.props {
			known[p.name] = true
			x, has := obj[p.name]
			if !has {
				if !p.required {
					p.state = omitted
				}
				continue
			}
			p.state = present
			if !p.setValue(b, x) {
				p.toRaw(x, "the value does not fit the form")
			}
		}
		n.entries = nil
		for _, k := range sortedKeys(obj) {
			if known[k] {
				continue
			}
			e := n.addEntry(b, k)
			if !e.setValue(b, obj[k]) {
				e.toRaw(obj[k], "the value does not fit the form")
			}
		}
		return true
	case kindArray:
		list, ok := v.([]any)
		if !ok {
			return false
		}
		n.items = nil
		for i, x := range list {
			it := n.addItem(b, i)
			if !it.setValue(b, x) {
				it.toRaw(x, "the item does not fit the form")
			}
		}
		return true
	case kindChoice:
		order := n.branchOrder(b, v)
		for _, i := range order {
			n.branch = i
			n.built[i] = nil
			if c := n.activeNode(b); c.setValue(b, v) {
				return true
			}
		}
		n.branch = order[0]
		return false
	case kindNull:
		return false
	case kindRaw:
		n.text = compactJSON(v)
		return true
	}
	return false
}

// branchOrder ranks a choice's branches by how well v seems to fit each:
// the branch's type, its const discriminators and required properties.
// The real test is setValue on each in turn; this just tries the likely
// one first so the user's input lands in the branch they meant.
func (n *node) branchOrder(b builder, v any) []int {
	type scored struct{ i, score int }
	var list []scored
	for i, br := range n.branches {
		score := 0
		m := br.schema
		if t := schema.Types(m); len(t) > 0 {
			if containsStr(t, jsonType(v)) || (jsonType(v) == "integer" && containsStr(t, "number")) {
				score += 4
			} else {
				score -= 10
			}
		}
		if obj, ok := v.(map[string]any); ok {
			props, _ := m["properties"].(map[string]any)
			for _, r := range schema.RequiredNames(m) {
				if _, has := obj[r]; has {
					score += 2
				} else {
					score -= 3
				}
			}
			for k, x := range obj {
				p, known := props[k]
				if !known {
					if m["additionalProperties"] == false {
						score -= 5
					}
					continue
				}
				score++
				if c, hasConst := b.s.Resolve(p)["const"]; hasConst {
					if sameJSON(c, x) {
						score += 5
					} else {
						score -= 20
					}
				}
			}
		}
		list = append(list, scored{i, score})
	}
	// Stable insertion sort: few branches.
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].score > list[j-1].score; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
	out := make([]int, len(list))
	for i, s := range list {
		out[i] = s.i
	}
	return out
}

// toRaw turns the node into a JSON text field holding v.
func (n *node) toRaw(v any, why string) {
	n.kind, n.note = kindRaw, why
	n.state = present
	n.text = compactJSON(v)
	n.props, n.entries, n.items, n.branches, n.built = nil, nil, nil, nil, nil
}

// --- small helpers ---

func unsupported(m map[string]any) string {
	for _, kw := range unsupportedKeywords {
		if v, ok := m[kw]; ok {
			if kw == "dependencies" {
				// Only schema dependencies are beyond the form; lists of
				// names are plain validation.
				schemaDep := false
				for _, d := range asMap(v) {
					if _, isList := d.([]any); !isList {
						schemaDep = true
					}
				}
				if !schemaDep {
					continue
				}
			}
			return kw
		}
	}
	return ""
}

// titledConsts recognises the "titled enum" idiom: a oneOf/anyOf whose
// branches are all {const, title}.
func titledConsts(s *schema.Schema, m map[string]any) []option {
	list := asSlice(m["oneOf"])
	if list == nil {
		list = asSlice(m["anyOf"])
	}
	if len(list) == 0 {
		return nil
	}
	out := make([]option, 0, len(list))
	for _, br := range list {
		bm := s.Resolve(br)
		c, ok := bm["const"]
		if !ok {
			return nil
		}
		label := showJSON(c)
		if t, ok := bm["title"].(string); ok && t != "" {
			label = t
		}
		out = append(out, option{value: c, label: label})
	}
	return out
}

// branchLabel names a branch: its title, else a const discriminator
// ("kind: circle"), else its type and required properties, else its number.
func branchLabel(own, merged map[string]any, i int) string {
	if t, ok := own["title"].(string); ok && t != "" {
		return t
	}
	if props, ok := merged["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if pm, ok := props[k].(map[string]any); ok {
				if c, ok := pm["const"]; ok {
					return k + ": " + showJSON(c)
				}
			}
		}
	}
	if t := schema.Types(own); len(t) > 0 {
		label := strings.Join(t, "|")
		if req := schema.RequiredNames(own); len(req) > 0 {
			label += " {" + strings.Join(req, ", ") + "}"
		}
		return label
	}
	if req := schema.RequiredNames(own); len(req) > 0 {
		return "{" + strings.Join(req, ", ") + "}"
	}
	return fmt.Sprintf("option %d", i+1)
}

func enumNames(m map[string]any) []string {
	var out []string
	for _, v := range asSlice(m["enumNames"]) {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

func minItems(m map[string]any) int {
	if n, ok := m["minItems"].(json.Number); ok {
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i
		}
	}
	return 0
}

func maxItems(m map[string]any) int {
	if n, ok := m["maxItems"].(json.Number); ok {
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i
		}
	}
	return -1
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func asNumber(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	}
	return "", false
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, ok := parseNumber(string(x), true); ok {
			return "integer"
		}
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

func sameJSON(a, b any) bool {
	if na, ok := asNumber(a); ok {
		if nb, ok := asNumber(b); ok {
			// Compared exactly, and cheaply whatever the exponent: a
			// server's enum may hold 1e999999999.
			ca, _, okA := schema.CanonicalNumber(na)
			cb, _, okB := schema.CanonicalNumber(nb)
			return okA && okB && ca == cb
		}
		return false
	}
	return compactJSON(a) == compactJSON(b)
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// showJSON is a value as a label: strings without quotes, the rest as JSON.
func showJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
