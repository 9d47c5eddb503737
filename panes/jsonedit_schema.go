package panes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// compileToolSchema compiles an inputSchema with mcp/lib/schema, the compiler
// the form, call and the doctor use, so the editor's verdict on arguments
// is theirs (formats asserted, no $ref out of the document, 2020-12 unless
// $schema says otherwise). A nil schema and nil error mean there is nothing
// to validate against.
func compileToolSchema(raw json.RawMessage) (*schema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	return schema.Compile(raw)
}

// argProblem is one reason the arguments do not validate, at a JSON pointer
// into the arguments ("" is the whole object).
type argProblem struct {
	Pointer string
	Message string
}

func (p argProblem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return ptr + ": " + p.Message
}

// validateArgs parses text as JSON and validates it. A parse error comes
// back as one problem at the line and column of the mistake.
func validateArgs(sch *schema.Schema, text string) []argProblem {
	v, err := schema.Decode([]byte(text))
	if err != nil {
		return []argProblem{{Pointer: "", Message: describeJSONError(text, err)}}
	}
	if _, ok := v.(map[string]any); !ok {
		return []argProblem{{Pointer: "", Message: "arguments must be a JSON object"}}
	}
	if sch == nil {
		return nil
	}
	issues := sch.Validate(v)
	out := make([]argProblem, 0, len(issues))
	for _, is := range issues {
		out = append(out, argProblem{Pointer: is.Pointer, Message: is.Message})
	}
	return out
}

// describeJSONError turns a decode error into "line L, column C: what".
func describeJSONError(text string, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := offsetLineCol(text, int(se.Offset)-1)
		return fmt.Sprintf("not JSON: line %d, column %d: %s", line, col, se.Error())
	}
	if strings.Contains(err.Error(), "EOF") {
		return "not JSON: the text ends before the value does"
	}
	return "not JSON: " + err.Error()
}

func offsetLineCol(s string, off int) (int, int) {
	off = max(0, min(off, len(s)))
	line := 1 + strings.Count(s[:off], "\n")
	col := off - strings.LastIndexByte(s[:off], '\n')
	return line, col
}

// skeletonArgs builds the editor's starting text from an inputSchema: an
// object holding the required properties, each with its default, const,
// first enum value, or the zero value of its type, nested objects filled the
// same way. Optional properties are left for the user (they are listed under
// the editor), so a bare ctrl+s sends the smallest valid call.
func skeletonArgs(raw json.RawMessage) string {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return "{}"
	}
	v := skeletonValue(root, root, 0)
	obj, ok := v.(orderedObject)
	if !ok || len(obj) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	writeOrdered(&b, obj, "")
	return escapeInvisibleInJSON(b.String())
}

// orderedObject keeps the schema's `required` order, which a map would lose.
type orderedObject []orderedMember

type orderedMember struct {
	key   string
	value any
}

func skeletonValue(root, sch map[string]any, depth int) any {
	if depth > 8 { // recursive schemas: stop somewhere sensible
		return nil
	}
	if ref, ok := sch["$ref"].(string); ok {
		if target, ok := resolveLocalRef(root, ref); ok {
			return skeletonValue(root, target, depth+1)
		}
	}
	if d, ok := sch["default"]; ok {
		return d
	}
	if c, ok := sch["const"]; ok {
		return c
	}
	if e, ok := sch["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ := schemaType(sch)
	switch typ {
	case "object":
		props, _ := sch["properties"].(map[string]any)
		req, _ := sch["required"].([]any)
		obj := orderedObject{}
		for _, r := range req {
			name, ok := r.(string)
			if !ok {
				continue
			}
			var v any
			if ps, ok := props[name].(map[string]any); ok {
				v = skeletonValue(root, ps, depth+1)
			}
			obj = append(obj, orderedMember{name, v})
		}
		return obj
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		return 0
	case "boolean":
		return false
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := sch[k].([]any); ok && len(alts) > 0 {
			if first, ok := alts[0].(map[string]any); ok {
				return skeletonValue(root, first, depth+1)
			}
		}
	}
	return nil
}

// schemaType is the schema's type, the first non-null one of a type list.
func schemaType(sch map[string]any) string {
	switch t := sch["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	if _, ok := sch["properties"]; ok {
		return "object"
	}
	return ""
}

// resolveLocalRef follows "#/…" pointers inside the schema; anything else
// is not followed (see errRemoteRef).
func resolveLocalRef(root map[string]any, ref string) (map[string]any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	var cur any = root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur = m[tok]
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

func writeOrdered(b *bytes.Buffer, v any, indent string) {
	obj, ok := v.(orderedObject)
	if !ok {
		raw, err := json.Marshal(v)
		if err != nil {
			raw = []byte("null")
		}
		b.Write(raw)
		return
	}
	if len(obj) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	inner := indent + "  "
	for i, m := range obj {
		key, _ := json.Marshal(m.key)
		b.WriteString(inner)
		b.Write(key)
		b.WriteString(": ")
		writeOrdered(b, m.value, inner)
		if i < len(obj)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
}

// escapeInvisibleInJSON rewrites runes encoding/json leaves raw but a
// terminal would act on (C1 controls, bidi controls) as \uXXXX escapes.
// Inside JSON they can only occur in strings, where the escape means the
// same character, so the text stays equivalent and becomes safe to edit.
func escapeInvisibleInJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
