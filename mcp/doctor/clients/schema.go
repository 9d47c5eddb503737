package clients

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// member is one key of a JSON object, in the order the object has it:
// clients written in JavaScript keep that order when they re-encode a
// schema, so a prediction of what they send must keep it too.
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object's members in order; ok is false for anything
// that is not an object.
func object(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := k.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = set(out, key, v)
	}
	return out, true
}

// set gives key the value v where the object has it (a JavaScript
// assignment keeps a key's place), else at the end.
func set(ms []member, key string, v json.RawMessage) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = v
			return ms
		}
	}
	return append(ms, member{key, v})
}

func get(ms []member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// encode writes members as a compact JSON object.
func encode(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(tokens.ClientJSON(m.val))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func isObject(raw json.RawMessage) bool {
	_, ok := object(raw)
	return ok
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// utf16Len is a string's length as JavaScript counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUTF16 keeps the first n UTF-16 code units of s, not splitting a
// character.
func cutUTF16(s string, n int) string {
	used := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if used+w > n {
			return s[:i]
		}
		used += w
	}
	return s
}

// claudeNormalize is Claude Code's normalizeMcpServerName, which it also
// applies to tool names.
func claudeNormalize(s string) string { return anthropicBadChar().ReplaceAllString(s, "_") }

var anthropicBadChar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

// claudePropertyName says whether Claude Code's merge keeps a property of
// this name: ^[a-zA-Z0-9_.-]{1,64}$.
func claudePropertyName(name string) bool { return ASCIIName(name, 64, "_.-") }

// claudeCombinators is Claude Code 2.1.328's rewrite of an input schema
// with a top-level anyOf, oneOf or allOf (m5a with everyBranch when anyOf
// or oneOf is present): the branches' properties merged, the first
// definition of a name kept unless branches define it differently (then
// an anyOf of the definitions, strings first), required the names the
// root, every allOf branch, or every anyOf/oneOf branch requires. ok is
// false when the schema has none at the top.
func claudeCombinators(raw json.RawMessage) (schema json.RawMessage, note string, ok bool) {
	root, isObj := object(raw)
	if !isObj {
		return nil, "", false
	}
	var combs []string
	for _, c := range []string{"anyOf", "oneOf", "allOf"} {
		if _, has := get(root, c); has {
			combs = append(combs, c)
		}
	}
	if len(combs) == 0 {
		return nil, "", false
	}
	everyBranch := contains(combs, "anyOf") || contains(combs, "oneOf")
	var props []member
	defs := map[string][]json.RawMessage{}
	add := func(p json.RawMessage, collect bool) {
		ms, ok := object(p)
		if !ok {
			return
		}
		for _, m := range ms {
			if !claudePropertyName(m.key) || !isObject(m.val) {
				continue
			}
			if _, seen := get(props, m.key); !seen {
				props = append(props, m)
				if collect {
					defs[m.key] = []json.RawMessage{m.val}
				}
			} else if collect && defs[m.key] != nil {
				defs[m.key] = append(defs[m.key], m.val)
			}
		}
	}
	rp, _ := get(root, "properties")
	add(rp, false)
	branchesOf := map[string][]json.RawMessage{}
	for _, c := range combs {
		v, _ := get(root, c)
		var branches []json.RawMessage
		if json.Unmarshal(v, &branches) != nil {
			return nil, "", false // Claude Code drops such a tool
		}
		for i := range branches {
			branches[i] = resolveRef(branches[i], root)
		}
		branchesOf[c] = branches
		for _, b := range branches {
			if ms, ok := object(b); ok {
				p, _ := get(ms, "properties")
				add(p, everyBranch && c != "allOf")
			}
		}
	}
	for i := range props {
		ds := distinct(defs[props[i].key])
		if len(ds) > 1 {
			var str, other []json.RawMessage
			for _, d := range ds {
				if t, _ := memberString(d, "type"); t == "string" {
					str = append(str, d)
				} else {
					other = append(other, d)
				}
			}
			all, _ := json.Marshal(append(str, other...))
			props[i].val = encode([]member{{"anyOf", all}})
		}
	}
	var required []string
	need := func(raw json.RawMessage) {
		var names []any
		_ = json.Unmarshal(raw, &names)
		for _, n := range names {
			if s, ok := n.(string); ok && !contains(required, s) {
				if _, has := get(props, s); has {
					required = append(required, s)
				}
			}
		}
	}
	rr, _ := get(root, "required")
	need(rr)
	for _, b := range branchesOf["allOf"] {
		if ms, ok := object(b); ok {
			r, _ := get(ms, "required")
			need(r)
		}
	}
	if everyBranch {
		for _, c := range []string{"anyOf", "oneOf"} {
			bs := branchesOf[c]
			count := map[string]int{}
			var order []string
			for k, b := range bs {
				var req []any
				if ms, ok := object(b); ok {
					r, _ := get(ms, "required")
					_ = json.Unmarshal(r, &req)
				}
				for _, x := range req {
					s, ok := x.(string)
					if !ok {
						continue
					}
					if count[s] == k {
						if _, seen := count[s]; !seen {
							order = append(order, s)
						}
						count[s] = k + 1
					}
				}
			}
			var inAll []string
			for _, s := range order {
				if count[s] == len(bs) {
					inAll = append(inAll, s)
				}
			}
			b, _ := json.Marshal(inAll)
			need(b)
		}
	}
	if required == nil {
		required = []string{}
	}
	reqJSON, _ := json.Marshal(required)
	out := []member{{"type", jsonString("object")}, {"properties", encode(props)}, {"required", reqJSON}}
	for _, k := range []string{"$defs", "definitions", "$schema", "additionalProperties", "description", "title"} {
		if v, has := get(root, k); has {
			out = append(out, member{k, v})
		}
	}
	if _, has := get(root, "additionalProperties"); !has {
		out = append(out, member{"additionalProperties", json.RawMessage("true")})
	}
	return encode(out), claudeConstraintNote(combs, root, branchesOf, everyBranch), true
}

// claudeConstraintNote is the note Claude Code puts before the
// description of a rewritten tool (Sn).
func claudeConstraintNote(combs []string, root []member, branchesOf map[string][]json.RawMessage, either bool) string {
	if !either {
		return "Input constraint: all listed parameters apply together (flattened from a JSON Schema allOf)."
	}
	c := "anyOf"
	if contains(combs, "oneOf") {
		c = "oneOf"
	}
	var groups []string
	for _, b := range branchesOf[c] {
		if g := claudeGroup(b); g != "" && !contains(groups, g) {
			groups = append(groups, g)
		}
	}
	m := "Provide parameters for at least one of"
	if c == "oneOf" {
		m = "Provide parameters for exactly one of"
	}
	if len(groups) == 0 {
		return "Input constraint: " + m + " the documented parameter groups (flattened from a JSON Schema " + c + ")."
	}
	for i := range groups {
		groups[i] = "(" + groups[i] + ")"
	}
	return "Input constraint: " + m + ": " + strings.Join(groups, " or ") + "."
}

// claudeGroup names one branch: its required names, else its properties.
func claudeGroup(b json.RawMessage) string {
	ms, ok := object(b)
	if !ok {
		return ""
	}
	if r, has := get(ms, "required"); has {
		var names []any
		if json.Unmarshal(r, &names) == nil && len(names) > 0 {
			var ss []string
			for _, n := range names {
				s, isStr := n.(string)
				if !isStr {
					ss = nil
					break
				}
				ss = append(ss, s)
			}
			if ss != nil {
				return strings.Join(ss, ", ")
			}
		}
	}
	if p, has := get(ms, "properties"); has {
		if ps, ok := object(p); ok && len(ps) > 0 {
			var ks []string
			for _, m := range ps {
				ks = append(ks, m.key)
			}
			return strings.Join(ks, ", ")
		}
	}
	return ""
}

// resolveRef follows a branch's local $ref into the root's $defs or
// definitions, as Claude Code does before merging.
func resolveRef(b json.RawMessage, root []member) json.RawMessage {
	ref, ok := memberString(b, "$ref")
	if !ok {
		return b
	}
	m := regexp.MustCompile(`^#/(\$defs|definitions)/([^/]+)$`).FindStringSubmatch(ref)
	if m == nil {
		return b
	}
	defs, _ := get(root, m[1])
	d, ok := object(defs)
	if !ok {
		return b
	}
	if v, has := get(d, m[2]); has && isObject(v) {
		return v
	}
	return b
}

func memberString(raw json.RawMessage, key string) (string, bool) {
	ms, ok := object(raw)
	if !ok {
		return "", false
	}
	v, has := get(ms, key)
	if !has {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func distinct(vs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, v := range vs {
		dup := false
		for _, o := range out {
			if sameJSON(o, v) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	p, _ := json.Marshal(x)
	q, _ := json.Marshal(y)
	return bytes.Equal(p, q)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// geminiName is Gemini CLI's generateValidName of "<server>_<tool>";
// long is the length of a name it shortened (0 when kept whole).
func geminiName(server, tool string) (name string, long int) {
	n := server + "_" + tool
	if !strings.HasPrefix(n, "mcp_") {
		n = "mcp_" + n
	}
	n = geminiBadChar().ReplaceAllString(n, "_")
	if r, _ := utf8.DecodeRuneInString(n); !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		n = "_" + n
	}
	if utf16Len(n) > GeminiNameMax {
		// Every character left is ASCII: a byte is a code unit.
		long = len(n)
		n = n[:GeminiNameKeep] + "..." + n[len(n)-GeminiNameKeep:]
	}
	return n, long
}

var geminiBadChar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_\-.:]`) })

// geminiNullable is Gemini CLI's rewrite of type [X, "null"] (X a
// string) into type X and nullable true, at every depth; changed says
// whether it found one.
func geminiNullable(raw json.RawMessage) (out json.RawMessage, changed bool) {
	if ms, ok := object(raw); ok {
		if t, has := get(ms, "type"); has {
			var ts []any
			if json.Unmarshal(t, &ts) == nil && len(ts) == 2 {
				for i, x := range ts {
					other, isStr := ts[1-i].(string)
					if x == "null" && isStr {
						ms = set(ms, "type", jsonString(other))
						ms = set(ms, "nullable", json.RawMessage("true"))
						changed = true
						break
					}
				}
			}
		}
		for i := range ms {
			v, c := geminiNullable(ms[i].val)
			ms[i].val = v
			changed = changed || c
		}
		return encode(ms), changed
	}
	var arr []json.RawMessage
	if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &arr) == nil {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, v := range arr {
			if i > 0 {
				b.WriteByte(',')
			}
			nv, c := geminiNullable(v)
			changed = changed || c
			b.Write(tokens.ClientJSON(nv))
		}
		b.WriteByte(']')
		return b.Bytes(), changed
	}
	return raw, false
}

// geminiWaitForPrevious is the property Gemini CLI adds to every object
// schema (DeclarativeTool.addWaitForPreviousParameter).
const geminiWaitForPrevious = `{"type":"boolean","description":"Set to true to wait for all previously requested tools in this turn to complete before starting. Set to false (or omit) to run in parallel. Use true when this tool depends on the output of previous tools."}`

// geminiAddWait adds wait_for_previous as Gemini CLI does: only to a
// schema of type object whose properties, if any, are an object.
func geminiAddWait(raw json.RawMessage) (json.RawMessage, bool) {
	ms, ok := object(raw)
	if !ok {
		return raw, false
	}
	if t, _ := memberString(raw, "type"); t != "object" {
		return raw, false
	}
	var props []member
	if p, has := get(ms, "properties"); has {
		if props, ok = object(p); !ok {
			return raw, false
		}
	}
	props = set(props, "wait_for_previous", json.RawMessage(geminiWaitForPrevious))
	ms = set(ms, "properties", encode(props))
	return encode(ms), true
}
