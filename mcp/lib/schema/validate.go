package schema

// The validator's core: one walk of an instance against a compiled node,
// keyword by keyword in the order the drafts define, producing Issues in
// people's words as it goes. Keywords that only need a yes or no (not, if,
// contains, the second match of oneOf) run quiet: out is nil and the walk
// stops at the first problem.

import (
	"fmt"
	"strconv"
	"strings"
)

// maxRefChain bounds $ref hops taken without moving into the instance: a
// loop of references (a server controls the schema) ends there instead of
// overflowing the stack.
const maxRefChain = 256

// stepBudget bounds the schema nodes one validation may visit, so a
// schema built to explode (allOf of allOf of the same $ref, forty deep)
// ends with an issue rather than hanging the UI: a base, and room for a
// dozen keywords' visits per value of the instance (a schema's node meets
// each value it applies to once or a few times).
func stepBudget(values int) int { return 1_000_000 + 12*values }

type validator struct {
	c        *compiled
	path     []string    // instance location, as pointer tokens
	scope    []*resource // the dynamic scope, outermost first
	refHops  int
	steps    int
	maxSteps int // stepBudget; 0 is no limit
	gaveUp   bool
}

// evaluated is what a schema evaluated of an object or array, for
// unevaluatedProperties and unevaluatedItems.
type evaluated struct {
	props    map[string]struct{}
	allProps bool
	items    int // items [0, items) were evaluated
	allItems bool
	itemIdx  map[int]struct{} // contains' matches (2020-12)
}

func (e *evaluated) merge(o *evaluated) {
	if o.allProps {
		e.allProps = true
	}
	for k := range o.props {
		if e.props == nil {
			e.props = map[string]struct{}{}
		}
		e.props[k] = struct{}{}
	}
	e.items = max(e.items, o.items)
	if o.allItems {
		e.allItems = true
	}
	for i := range o.itemIdx {
		if e.itemIdx == nil {
			e.itemIdx = map[int]struct{}{}
		}
		e.itemIdx[i] = struct{}{}
	}
}

func (e *evaluated) addProp(name string) {
	if e == nil {
		return
	}
	if e.props == nil {
		e.props = map[string]struct{}{}
	}
	e.props[name] = struct{}{}
}

func (v *validator) pointer() string {
	if len(v.path) == 0 {
		return ""
	}
	return Pointer(v.path...)
}

func (v *validator) issue(out *[]Issue, format string, args ...any) {
	if out != nil {
		*out = append(*out, Issue{v.pointer(), fmt.Sprintf(format, args...)})
	}
}

func (v *validator) issueAt(out *[]Issue, token, msg string) {
	if out != nil {
		*out = append(*out, Issue{v.pointer() + "/" + EscapeToken(token), msg})
	}
}

// child validates the value at token (a property name or an index).
func (v *validator) child(n *node, inst any, token string, out *[]Issue) bool {
	v.path = append(v.path, token)
	hops := v.refHops
	v.refHops = 0
	ok := v.validate(n, inst, out, nil)
	v.refHops = hops
	v.path = v.path[:len(v.path)-1]
	return ok
}

// inPlace validates a subschema against the same instance (allOf, $ref,
// then...), keeping its annotations only when it passes.
func (v *validator) inPlace(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	if ev == nil {
		return v.validate(n, inst, out, nil)
	}
	var sub evaluated
	ok := v.validate(n, inst, out, &sub)
	if ok {
		ev.merge(&sub)
	}
	return ok
}

// follow is inPlace for a reference: it counts the hop.
func (v *validator) follow(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	if v.refHops >= maxRefChain {
		v.issue(out, "cannot be checked: the schema's references loop (more than %d $ref in a row)", maxRefChain)
		return false
	}
	v.refHops++
	ok := v.inPlace(n, inst, out, ev)
	v.refHops--
	return ok
}

// validate checks inst against n, appending issues to out (nil: quiet),
// and adds what n evaluated to ev (nil: not tracked).
func (v *validator) validate(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	if v.steps++; v.maxSteps > 0 && v.steps > v.maxSteps {
		if !v.gaveUp {
			v.gaveUp = true
			v.issue(out, "cannot be checked: the schema takes too long to evaluate")
		}
		return false
	}
	if n.isBool {
		if !n.boolVal {
			v.issue(out, "is not allowed")
		}
		return n.boolVal
	}
	if n.meta != 0 {
		// A $ref to a dialect's meta-schema: the instance is a schema,
		// judged by the shape checks, and the issue is where its shape
		// is wrong.
		if err := checkShape(inst, "", n.meta, 0); err != nil {
			if se, ok := err.(*shapeError); ok && out != nil {
				*out = append(*out, Issue{v.pointer() + se.loc, se.msg})
			} else {
				v.issue(out, "is not a valid schema: %v", err)
			}
			return false
		}
		return true
	}
	if len(v.scope) == 0 || v.scope[len(v.scope)-1] != n.res {
		v.scope = append(v.scope, n.res)
		defer func() { v.scope = v.scope[:len(v.scope)-1] }()
	}
	local := ev
	if v.c.annotations && (n.unevaluatedProps != nil || n.unevaluatedItems != nil) {
		local = &evaluated{}
	}

	t := typeOf(inst)
	if t == 0 {
		v.issue(out, "is not a JSON value")
		return false
	}
	if n.types != 0 && n.types&t == 0 {
		if !(n.types&typeInteger != 0 && t == typeNumber && isInteger(inst)) {
			v.issue(out, "must be %s, not %s", strings.Join(typeNamesOf(n.types), " or "), typeNamesOf(t)[0])
			return false
		}
	}
	if n.hasConst && !equal(inst, n.constVal) {
		v.issue(out, "must be %s", showValue(n.constVal))
		return false
	}
	if n.hasEnum && !inEnum(inst, n.enum) {
		v.issue(out, "must be one of %s", joinValues(n.enum))
		return false
	}
	if n.format != "" {
		if s, ok := inst.(string); ok {
			if valid, _ := checkFormat(n.format, s); !valid {
				v.issue(out, "is not a valid %s", n.format)
				return false
			}
		}
	}
	ok := true
	if n.ref != nil {
		if !v.follow(n.ref, inst, out, local) {
			ok = false
			if out == nil {
				return false
			}
		}
		if n.refOnly {
			return ok
		}
	}

	switch x := inst.(type) {
	case map[string]any:
		ok = v.object(n, x, out, local) && ok
	case []any:
		ok = v.array(n, x, out, local) && ok
	case string:
		ok = v.str(n, x, out) && ok
	default:
		if t == typeNumber {
			ok = v.number(n, inst, out) && ok
		}
	}
	if !ok && out == nil {
		return false
	}
	ok = v.applicators(n, inst, out, local) && ok
	if local != ev {
		ok = v.unevaluated(n, inst, out, local) && ok
		if ev != nil && ok {
			ev.merge(local)
		}
	}
	return ok
}

func isInteger(inst any) bool {
	d, ok := numberOf(inst)
	return ok && d.isInt()
}

func inEnum(inst any, enum []any) bool {
	for _, e := range enum {
		if equal(inst, e) {
			return true
		}
	}
	return false
}

// applicators are the keywords that apply subschemas to the same
// instance: the dynamic references, not, allOf, anyOf, oneOf, if.
func (v *validator) applicators(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	ok := true
	fail := func() bool { ok = false; return out == nil }
	if n.dynamicRef != nil {
		target := n.dynamicRef
		if n.dynamicName != "" {
			for _, r := range v.scope {
				if t, found := r.dynamicNodes[n.dynamicName]; found {
					target = t
					break
				}
			}
		}
		if !v.follow(target, inst, out, ev) && fail() {
			return false
		}
	}
	if n.recursiveRef != nil {
		target := n.recursiveRef
		if n.recursiveBase {
			for i := len(v.scope) - 1; i >= 0; i-- {
				r := v.scope[i]
				if !r.recursiveAnchor || r.root == nil {
					break
				}
				target = r.root
			}
		}
		if !v.follow(target, inst, out, ev) && fail() {
			return false
		}
	}
	if n.not != nil && v.validate(n.not, inst, nil, nil) {
		v.issue(out, "must not match the schema under not")
		if fail() {
			return false
		}
	}
	for _, sub := range n.allOf {
		if !v.inPlace(sub, inst, out, ev) && fail() {
			return false
		}
	}
	if len(n.anyOf) > 0 && !v.anyOf(n, inst, out, ev) && fail() {
		return false
	}
	if len(n.oneOf) > 0 && !v.oneOf(n, inst, out, ev) && fail() {
		return false
	}
	if n.ifNode != nil {
		var branch *node
		if v.inPlace(n.ifNode, inst, nil, ev) {
			branch = n.then
		} else {
			branch = n.elseNd
		}
		if branch != nil && !v.inPlace(branch, inst, out, ev) && fail() {
			return false
		}
	}
	return ok
}

// anyOf passes when a branch does; when none does, it reports the branch
// that came closest (fewest issues): every branch's complaints would
// mostly be noise about branches the user never meant.
func (v *validator) anyOf(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	matched := false
	var best []Issue
	for i, sub := range n.anyOf {
		var got []Issue
		var sink *[]Issue
		if out != nil && !matched {
			sink = &got
		}
		if v.inPlace(sub, inst, sink, ev) {
			matched = true
			if ev == nil {
				return true // nothing to collect from the other branches
			}
			continue
		}
		if sink != nil && (i == 0 || len(got) < len(best)) {
			best = got
		}
	}
	if !matched && out != nil {
		if len(best) == 0 {
			v.issue(out, "matches none of the anyOf branches")
		}
		*out = append(*out, best...)
	}
	return matched
}

// oneOf passes when exactly one branch does.
func (v *validator) oneOf(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	matched := -1
	var best []Issue
	for i, sub := range n.oneOf {
		var got []Issue
		var sink *[]Issue
		if out != nil && matched == -1 {
			sink = &got
		}
		var sev *evaluated
		if ev != nil && matched == -1 {
			sev = &evaluated{}
		}
		if v.validate(sub, inst, sink, sev) {
			if matched != -1 {
				v.issue(out, "matches more than one oneOf branch (%d, %d)", matched, i)
				return false
			}
			matched = i
			if sev != nil {
				ev.merge(sev)
			}
			continue
		}
		if sink != nil && (i == 0 || len(got) < len(best)) {
			best = got
		}
	}
	if matched == -1 {
		if out != nil {
			if len(best) == 0 {
				v.issue(out, "matches none of the oneOf branches")
			}
			*out = append(*out, best...)
		}
		return false
	}
	return true
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to what
// the node's other keywords left.
func (v *validator) unevaluated(n *node, inst any, out *[]Issue, ev *evaluated) bool {
	ok := true
	switch x := inst.(type) {
	case map[string]any:
		if n.unevaluatedProps == nil || ev.allProps {
			break
		}
		for name, val := range x {
			if _, done := ev.props[name]; done {
				continue
			}
			if !v.child(n.unevaluatedProps, val, name, out) {
				ok = false
				if out == nil {
					return false
				}
			}
		}
		ev.allProps = true
	case []any:
		if n.unevaluatedItems == nil || ev.allItems {
			break
		}
		for i := ev.items; i < len(x); i++ {
			if _, done := ev.itemIdx[i]; done {
				continue
			}
			if !v.child(n.unevaluatedItems, x[i], strconv.Itoa(i), out) {
				ok = false
				if out == nil {
					return false
				}
			}
		}
		ev.allItems = true
	}
	return ok
}
