package surfacediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// Class says what a change means for a client written against A.
type Class string

const (
	// Breaking means a client of A may fail against B.
	Breaking Class = "breaking"
	// Compatible means a client of A keeps working against B.
	Compatible Class = "compatible"
	// Info is worth knowing but neither (a server version, a protocol version
	// that the client negotiates anyway).
	Info Class = "info"
)

// Change is one difference between A and B.
type Change struct {
	Area  string `json:"area"`           // protocol, server, capability, tool, resource, template, prompt
	Name  string `json:"name,omitempty"` // the tool's name, the resource's URI...
	Op    string `json:"change"`         // added, removed, changed
	Path  string `json:"path,omitempty"` // where inside the item: inputSchema.properties.city
	What  string `json:"what"`           // one sentence
	Class Class  `json:"class"`
	// FollowsClient, on an item offered on one side only, is the client
	// capability its presence seems to follow: only that side's client
	// declared it (the change is then information, not a removal).
	FollowsClient string `json:"followsClient,omitempty"`
}

// Report is the outcome of Compare.
type Report struct {
	A          Side     `json:"a"`
	B          Side     `json:"b"`
	Changes    []Change `json:"changes"`
	Breaking   int      `json:"breaking"`
	Compatible int      `json:"compatible"`
	// NotListed are the lists one side listed and the other did not: their
	// items were not compared (information, never a change).
	NotListed []NotListed `json:"notListed,omitempty"`
	// Clients are the client capabilities one side's client declared and
	// the other's did not; empty when both clients declared the same.
	Clients []ClientDifference `json:"clients,omitempty"`
}

// NotListed is a list only one side listed.
type NotListed struct {
	Area     string `json:"area"`     // tool, resource, template, prompt
	Method   string `json:"method"`   // tools/list
	ListedBy string `json:"listedBy"` // "A" or "B"
	Count    int    `json:"count"`    // the items that side listed
}

// ClientDifference is a client capability declared on one side only.
type ClientDifference struct {
	Capability string `json:"capability"` // a dotted path: roots, elicitation.url
	A          bool   `json:"a"`
	B          bool   `json:"b"`
}

// Side describes one of the two surfaces compared.
type Side struct {
	Label              string          `json:"label"`
	Server             string          `json:"server"`
	Version            string          `json:"version"`
	ProtocolVersion    string          `json:"protocolVersion"`
	Era                string          `json:"era"`
	Client             string          `json:"client,omitempty"`
	ClientVersion      string          `json:"clientVersion,omitempty"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
}

func side(s *Surface) Side {
	return Side{Label: s.Label, Server: s.Server.Name, Version: s.Server.Version, ProtocolVersion: s.ProtocolVersion, Era: s.Era,
		Client: s.Client.Name, ClientVersion: s.Client.Version, ClientCapabilities: s.ClientCapabilities}
}

// Compare lists what changed from a to b, breaking changes first.
func Compare(a, b *Surface) *Report {
	r := &Report{A: side(a), B: side(b)}
	c := &collector{}
	if a.ProtocolVersion != b.ProtocolVersion {
		c.add(Change{Area: "protocol", Op: "changed", Class: Info,
			What: fmt.Sprintf("protocol version %s → %s", a.ProtocolVersion, b.ProtocolVersion)})
	}
	if a.Era != b.Era {
		c.add(Change{Area: "protocol", Op: "changed", Class: Info, What: fmt.Sprintf("era %s → %s", a.Era, b.Era)})
	}
	if a.Server.Name != b.Server.Name || a.Server.Version != b.Server.Version {
		c.add(Change{Area: "server", Op: "changed", Class: Info,
			What: fmt.Sprintf("server %s %s → %s %s", a.Server.Name, a.Server.Version, b.Server.Name, b.Server.Version)})
	}
	compareCapabilities(c, a.Capabilities, b.Capabilities)
	r.Clients = clientDifferences(a.ClientCapabilities, b.ClientCapabilities)
	c.clients = r.Clients
	for _, area := range areas {
		al, bl := listed(a, area.method), listed(b, area.method)
		switch {
		case al && !bl:
			r.NotListed = append(r.NotListed, NotListed{Area: area.name, Method: area.method, ListedBy: "A", Count: len(a.Lists[area.method])})
		case !al && bl:
			r.NotListed = append(r.NotListed, NotListed{Area: area.name, Method: area.method, ListedBy: "B", Count: len(b.Lists[area.method])})
		case al && bl:
			compareItems(c, area, a.Lists[area.method], b.Lists[area.method])
		}
	}
	r.Changes = c.changes
	sort.SliceStable(r.Changes, func(i, j int) bool { return rank(r.Changes[i].Class) < rank(r.Changes[j].Class) })
	for _, ch := range r.Changes {
		switch ch.Class {
		case Breaking:
			r.Breaking++
		case Compatible:
			r.Compatible++
		}
	}
	return r
}

func listed(s *Surface, method string) bool { _, ok := s.Lists[method]; return ok }

func rank(c Class) int {
	switch c {
	case Breaking:
		return 0
	case Compatible:
		return 1
	}
	return 2
}

type collector struct {
	changes []Change
	clients []ClientDifference
}

// clientDifferences lists the client capabilities (dotted paths, as
// capabilities are compared) declared on one side only.
func clientDifferences(a, b json.RawMessage) []ClientDifference {
	af, bf := map[string]any{}, map[string]any{}
	flatten("", decode(a), af)
	flatten("", decode(b), bf)
	var out []ClientDifference
	for _, k := range sortedKeys(af, bf) {
		_, aok := af[k]
		_, bok := bf[k]
		if aok != bok {
			out = append(out, ClientDifference{Capability: k, A: aok, B: bok})
		}
	}
	return out
}

// genericWords are capability path segments too common to tie an item to
// a capability.
var genericWords = map[string]bool{"experimental": true, "extensions": true, "requests": true, "listChanged": true,
	"list": true, "form": true, "url": true, "create": true, "cancel": true}

// followsClient says which client capability an item offered on one side
// only seems to follow: one only that side's client declared, named in
// the item's name, title or description ("get-roots-list" and roots).
func (c *collector) followsClient(item map[string]any, onA bool) string {
	text := ""
	for _, k := range []string{"name", "title", "description", "uri", "uriTemplate"} {
		if v, ok := item[k].(string); ok {
			text += " " + strings.ToLower(v)
		}
	}
	for _, d := range c.clients {
		if d.A != onA {
			continue // declared by the side that lacks the item
		}
		for _, w := range strings.Split(d.Capability, ".") {
			if len(w) >= 4 && !genericWords[w] && strings.Contains(text, strings.ToLower(w)) {
				return d.Capability
			}
		}
	}
	return ""
}

func (c *collector) add(ch Change) { c.changes = append(c.changes, ch) }

// area describes one kind of list item: how it is keyed and compared.
type area struct {
	name   string // "tool"
	method string
	key    string // the field that names an item
}

var areas = []area{
	{"tool", mcp.MethodToolsList, "name"},
	{"resource", mcp.MethodResourcesList, "uri"},
	{"template", mcp.MethodResourceTemplatesList, "uriTemplate"},
	{"prompt", mcp.MethodPromptsList, "name"},
}

func decode(raw json.RawMessage) map[string]any {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	_ = d.Decode(&m)
	return m
}

func compareItems(c *collector, ar area, a, b []json.RawMessage) {
	index := func(items []json.RawMessage) (map[string]map[string]any, []string) {
		m := map[string]map[string]any{}
		var order []string
		for _, raw := range items {
			obj := decode(raw)
			name, _ := obj[ar.key].(string)
			if _, dup := m[name]; !dup {
				order = append(order, name)
			}
			m[name] = obj
		}
		return m, order
	}
	am, aOrder := index(a)
	bm, bOrder := index(b)
	for _, name := range aOrder {
		bi, ok := bm[name]
		switch {
		case ok:
			compareItem(c, ar, name, am[name], bi)
		case c.followsClient(am[name], true) != "":
			capName := c.followsClient(am[name], true)
			c.add(Change{Area: ar.name, Name: name, Op: "removed", Class: Info, FollowsClient: capName,
				What: fmt.Sprintf("%s %s is offered only to A, whose client declared %s (B's did not)", ar.name, name, capName)})
		default:
			c.add(Change{Area: ar.name, Name: name, Op: "removed", Class: Breaking, What: fmt.Sprintf("%s %s was removed", ar.name, name)})
		}
	}
	for _, name := range bOrder {
		if _, ok := am[name]; ok {
			continue
		}
		if capName := c.followsClient(bm[name], false); capName != "" {
			c.add(Change{Area: ar.name, Name: name, Op: "added", Class: Info, FollowsClient: capName,
				What: fmt.Sprintf("%s %s is offered only to B, whose client declared %s (A's did not)", ar.name, name, capName)})
			continue
		}
		c.add(Change{Area: ar.name, Name: name, Op: "added", Class: Compatible, What: fmt.Sprintf("new %s %s", ar.name, name)})
	}
}

func compareItem(c *collector, ar area, name string, a, b map[string]any) {
	at := func(path, what string, cl Class) {
		c.add(Change{Area: ar.name, Name: name, Op: "changed", Path: path, What: what, Class: cl})
	}
	for _, k := range sortedKeys(a, b) {
		av, aok := a[k]
		bv, bok := b[k]
		if reflect.DeepEqual(av, bv) {
			continue
		}
		switch {
		case k == "inputSchema" && ar.name == "tool":
			compareSchema(c, ar.name, name, k, asMap(av), asMap(bv), true)
		case k == "outputSchema" && ar.name == "tool":
			switch {
			case aok && !bok:
				at(k, "outputSchema was removed: structured results are no longer promised", Breaking)
			case !aok && bok:
				at(k, "outputSchema was added", Compatible)
			default:
				compareSchema(c, ar.name, name, k, asMap(av), asMap(bv), false)
			}
		case k == "arguments" && ar.name == "prompt":
			compareArguments(c, name, av, bv)
		case k == "annotations" && ar.name == "tool":
			compareAnnotations(at, asMap(av), asMap(bv))
		case k == "_meta":
			compareMeta(at, asMap(av), asMap(bv))
		case k == "icons":
			at(k, "icons changed", Compatible)
		case k == "description" || k == "title":
			at(k, k+" changed", Compatible)
		default:
			at(k, fmt.Sprintf("%s changed: %s → %s", k, short(av), short(bv)), Compatible)
		}
	}
}

// toolHints are a tool's annotation hints with the value the spec gives
// one that is absent, and the value that makes a client more careful.
var toolHints = []struct {
	key        string
	dflt, safe bool
	riskier    string // what the change to the careful value means
}{
	{"readOnlyHint", false, true, "the tool may now change its environment"},
	{"destructiveHint", true, false, "the tool may now destroy or overwrite"},
	{"idempotentHint", false, true, "calling the tool again may now have more effect"},
	{"openWorldHint", true, false, "the tool may now reach outside the server"},
}

// compareAnnotations classes each hint by its effective value: a hint
// that tells a client to be less careful than before (a tool that was
// read-only and no longer is) is breaking for a client that relied on it
// to call without asking; the other way, or the title, is compatible.
func compareAnnotations(at func(path, what string, cl Class), a, b map[string]any) {
	for _, h := range toolHints {
		get := func(m map[string]any) bool {
			if v, ok := m[h.key].(bool); ok {
				return v
			}
			return h.dflt
		}
		av, bv := get(a), get(b)
		path := "annotations." + h.key
		switch {
		case av == bv:
			if !reflect.DeepEqual(a[h.key], b[h.key]) {
				at(path, fmt.Sprintf("%s %s → %s (the same in effect)", h.key, orNone(a[h.key]), orNone(b[h.key])), Compatible)
			}
		case av == h.safe:
			at(path, fmt.Sprintf("%s %v → %v: %s", h.key, av, bv, h.riskier), Breaking)
		default:
			at(path, fmt.Sprintf("%s %v → %v", h.key, av, bv), Compatible)
		}
	}
	for _, k := range sortedKeys(a, b) {
		known := false
		for _, h := range toolHints {
			known = known || h.key == k
		}
		if !known && !reflect.DeepEqual(a[k], b[k]) {
			at("annotations."+k, fmt.Sprintf("annotations.%s %s → %s", k, orNone(a[k]), orNone(b[k])), Compatible)
		}
	}
}

// compareMeta compares _meta key by key: a key gone takes away what a
// client reading it relied on (an app's UI resource, a vendor's hint);
// a new or changed key is compatible.
func compareMeta(at func(path, what string, cl Class), a, b map[string]any) {
	for _, k := range sortedKeys(a, b) {
		av, aok := a[k]
		bv, bok := b[k]
		switch {
		case aok && !bok:
			at("_meta."+k, "_meta key "+k+" was removed", Breaking)
		case !aok && bok:
			at("_meta."+k, "new _meta key "+k, Compatible)
		case !reflect.DeepEqual(av, bv):
			at("_meta."+k, fmt.Sprintf("_meta.%s: %s → %s", k, short(av), short(bv)), Compatible)
		}
	}
}

func compareArguments(c *collector, prompt string, av, bv any) {
	args := func(v any) (map[string]map[string]any, []string) {
		m := map[string]map[string]any{}
		var order []string
		list, _ := v.([]any)
		for _, it := range list {
			obj, _ := it.(map[string]any)
			n, _ := obj["name"].(string)
			m[n] = obj
			order = append(order, n)
		}
		return m, order
	}
	am, aOrder := args(av)
	bm, bOrder := args(bv)
	add := func(path, what string, cl Class, op string) {
		c.add(Change{Area: "prompt", Name: prompt, Op: op, Path: "arguments." + path, What: what, Class: cl})
	}
	for _, n := range aOrder {
		ba, ok := bm[n]
		if !ok {
			add(n, "argument "+n+" was removed", Breaking, "removed")
			continue
		}
		ar, br := am[n]["required"] == true, ba["required"] == true
		switch {
		case !ar && br:
			add(n, "argument "+n+" is now required", Breaking, "changed")
		case ar && !br:
			add(n, "argument "+n+" is no longer required", Compatible, "changed")
		}
		if !reflect.DeepEqual(am[n]["description"], ba["description"]) || !reflect.DeepEqual(am[n]["title"], ba["title"]) {
			add(n, "argument "+n+": description changed", Compatible, "changed")
		}
	}
	for _, n := range bOrder {
		if _, ok := am[n]; !ok {
			if bm[n]["required"] == true {
				add(n, "new required argument "+n, Breaking, "added")
			} else {
				add(n, "new optional argument "+n, Compatible, "added")
			}
		}
	}
}

// compareSchema compares two JSON Schemas. For an input schema (what the
// client sends) accepting less is breaking; for an output schema (what the
// client reads) promising less, or producing what was not promised, is.
func compareSchema(c *collector, areaName, name, path string, a, b map[string]any, input bool) {
	add := func(p, what string, cl Class, op string) {
		c.add(Change{Area: areaName, Name: name, Op: op, Path: p, What: what, Class: cl})
	}
	// narrowing is breaking for an input, widening for an output.
	narrowed, widened := Breaking, Compatible
	if !input {
		narrowed, widened = Compatible, Breaking
	}

	at, bt := types(a), types(b)
	if !slices.Equal(at, bt) {
		what := fmt.Sprintf("type %s → %s", typeText(at), typeText(bt))
		switch {
		case covers(bt, at):
			add(path+".type", "type widened: "+what, widened, "changed")
		case covers(at, bt):
			add(path+".type", "type narrowed: "+what, narrowed, "changed")
		default:
			add(path+".type", "type changed: "+what, Breaking, "changed")
		}
	}
	compareEnum(add, path, a["enum"], b["enum"], narrowed, widened)

	aProps, bProps := asMap(a["properties"]), asMap(b["properties"])
	aReq, bReq := stringSet(a["required"]), stringSet(b["required"])
	for _, k := range sortedKeys(aProps, bProps) {
		p := path + ".properties." + k
		av, aok := aProps[k]
		bv, bok := bProps[k]
		switch {
		case aok && !bok:
			add(p, "property "+k+" was removed", Breaking, "removed")
		case !aok && bok:
			switch {
			case input && bReq[k]:
				add(p, "new required property "+k, Breaking, "added")
			case input:
				add(p, "new optional property "+k, Compatible, "added")
			default:
				add(p, "new property "+k, Compatible, "added")
			}
		default:
			switch {
			case !aReq[k] && bReq[k]:
				if input {
					add(p, "property "+k+" is now required", Breaking, "changed")
				} else {
					add(p, "property "+k+" is now always present", Compatible, "changed")
				}
			case aReq[k] && !bReq[k]:
				if input {
					add(p, "property "+k+" is no longer required", Compatible, "changed")
				} else {
					add(p, "property "+k+" may now be missing", Breaking, "changed")
				}
			}
			if !reflect.DeepEqual(av, bv) {
				compareSchema(c, areaName, name, p, asMap(av), asMap(bv), input)
			}
		}
	}
	if ai, bi := asMap(a["items"]), asMap(b["items"]); !reflect.DeepEqual(ai, bi) && (ai != nil || bi != nil) {
		compareSchema(c, areaName, name, path+".items", ai, bi, input)
	}
	// Bounds: a larger lower bound or a smaller upper bound accepts less.
	for _, k := range []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"} {
		compareBound(add, path, k, a[k], b[k], true, narrowed, widened)
	}
	for _, k := range []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"} {
		compareBound(add, path, k, a[k], b[k], false, narrowed, widened)
	}
	if !reflect.DeepEqual(a["pattern"], b["pattern"]) {
		switch {
		case b["pattern"] == nil:
			add(path+".pattern", "pattern removed", widened, "changed")
		default:
			add(path+".pattern", fmt.Sprintf("pattern %s → %s", short(a["pattern"]), short(b["pattern"])), narrowed, "changed")
		}
	}
	if ap, bp := a["additionalProperties"], b["additionalProperties"]; !reflect.DeepEqual(ap, bp) {
		if bp == false {
			add(path+".additionalProperties", "additional properties are no longer allowed", narrowed, "changed")
		} else if ap == false {
			add(path+".additionalProperties", "additional properties are now allowed", widened, "changed")
		}
	}
	for _, k := range []string{"description", "title", "default", "examples"} {
		if !reflect.DeepEqual(a[k], b[k]) {
			add(path+"."+k, k+" changed", Compatible, "changed")
		}
	}
}

func compareEnum(add func(p, what string, cl Class, op string), path string, av, bv any, narrowed, widened Class) {
	if reflect.DeepEqual(av, bv) {
		return
	}
	al, aok := av.([]any)
	bl, bok := bv.([]any)
	switch {
	case !aok && bok:
		add(path+".enum", "now limited to "+short(bv), narrowed, "changed")
	case aok && !bok:
		add(path+".enum", "no longer limited to "+short(av), widened, "changed")
	default:
		var removed, added []string
		for _, v := range al {
			if !containsValue(bl, v) {
				removed = append(removed, short(v))
			}
		}
		for _, v := range bl {
			if !containsValue(al, v) {
				added = append(added, short(v))
			}
		}
		if len(removed) > 0 {
			add(path+".enum", "enum values removed: "+strings.Join(removed, ", "), narrowed, "changed")
		}
		if len(added) > 0 {
			add(path+".enum", "enum values added: "+strings.Join(added, ", "), widened, "changed")
		}
	}
}

func compareBound(add func(p, what string, cl Class, op string), path, k string, av, bv any, lower bool, narrowed, widened Class) {
	if reflect.DeepEqual(av, bv) {
		return
	}
	an, aok := number(av)
	bn, bok := number(bv)
	tighter := false
	switch {
	case !bok: // removed
	case !aok: // added
		tighter = true
	case lower:
		tighter = bn > an
	default:
		tighter = bn < an
	}
	what := fmt.Sprintf("%s %s → %s", k, orNone(av), orNone(bv))
	if tighter {
		add(path+"."+k, what, narrowed, "changed")
	} else {
		add(path+"."+k, what, widened, "changed")
	}
}

func orNone(v any) string {
	if v == nil {
		return "none"
	}
	return short(v)
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

// types is a schema's type set, sorted; nil means any type.
func types(s map[string]any) []string {
	var out []string
	switch t := s["type"].(type) {
	case string:
		out = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
	}
	sort.Strings(out)
	return out
}

func typeText(t []string) string {
	if t == nil {
		return "any"
	}
	return strings.Join(t, "|")
}

// covers reports whether every value of type set b is accepted by a.
func covers(a, b []string) bool {
	if a == nil {
		return true
	}
	if b == nil {
		return false
	}
	for _, t := range b {
		if !slices.Contains(a, t) && !(t == "integer" && slices.Contains(a, "number")) {
			return false
		}
	}
	return true
}

func compareCapabilities(c *collector, a, b json.RawMessage) {
	af, bf := map[string]any{}, map[string]any{}
	flatten("", decode(a), af)
	flatten("", decode(b), bf)
	for _, k := range sortedKeys(af, bf) {
		av, aok := af[k]
		bv, bok := bf[k]
		switch {
		case aok && !bok:
			c.add(Change{Area: "capability", Name: k, Op: "removed", Class: Breaking, What: "capability " + k + " is no longer declared"})
		case !aok && bok:
			c.add(Change{Area: "capability", Name: k, Op: "added", Class: Compatible, What: "capability " + k + " is now declared"})
		case !reflect.DeepEqual(av, bv):
			cl := Compatible
			if av == true {
				cl = Breaking
			}
			c.add(Change{Area: "capability", Name: k, Op: "changed", Class: cl, What: fmt.Sprintf("capability %s: %s → %s", k, short(av), short(bv))})
		}
	}
}

// flatten turns capabilities into dotted paths; an empty object is a leaf
// (it declares the capability).
func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out[p] = map[string]any{}
			flatten(p, sub, out)
			continue
		}
		out[p] = v
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return out
}

func sortedKeys[V any](maps ...map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
