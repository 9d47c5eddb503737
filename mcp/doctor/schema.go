package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/lib/schema"
)

// schemaFault is why a schema cannot be used, with the rule it breaks.
type schemaFault struct {
	rule   string
	detail string
}

// compileSchema compiles a server's schema with mcp/lib/schema, the compiler
// the form, the JSON editor and call use, so the doctor's verdict on a
// schema and an instance is theirs. Before compiling it names the faults it
// can tell apart: not JSON, a network $ref, a dialect mcpscope cannot
// validate; anything else that does not compile is tools/invalid-schema.
// The schema is decoded once, for these checks and the compiler alike.
func compileSchema(raw json.RawMessage) (*schema.Schema, *schemaFault) {
	sch, err := schema.Parse(raw)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, &schemaFault{"tools/invalid-schema", "not valid JSON: " + err.Error()}
	}
	doc := sch.Document()
	if ref := networkRef(doc, 0); ref != "" {
		return nil, &schemaFault{"tools/network-ref", "it refers to " + ref}
	}
	if m, ok := doc.(map[string]any); ok {
		if d, ok := m["$schema"].(string); ok && !schema.KnownDialect(d) {
			return nil, &schemaFault{"tools/unsupported-dialect", fmt.Sprintf("$schema %q is not a dialect mcpscope can validate (2020-12, 2019-09, draft-07, -06, -04)", d)}
		}
	}
	c := sch.Compile()
	sch.SetCompiled(c)
	if err := c.Err(); err != nil {
		return nil, &schemaFault{"tools/invalid-schema", oneLine(err)}
	}
	return sch, nil
}

// networkRef finds a $ref to an absolute http(s) URI.
func networkRef(v any, depth int) string {
	if depth > 64 {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if k == "$ref" || k == "$dynamicRef" {
				if s, ok := val.(string); ok && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) {
					return s
				}
			}
			if r := networkRef(val, depth+1); r != "" {
				return r
			}
		}
	case []any:
		for _, val := range x {
			if r := networkRef(val, depth+1); r != "" {
				return r
			}
		}
	}
	return ""
}

// validate checks an instance against a compiled schema and says why it
// fails, in one line, in mcp/lib/schema's words ("/sum is required").
func validate(sch *schema.Schema, raw json.RawMessage) string {
	issues := sch.ValidateJSON(raw)
	if len(issues) == 0 {
		return ""
	}
	leaves := make([]string, 0, 4)
	for i, is := range issues {
		if i == 3 {
			leaves = append(leaves, fmt.Sprintf("and %d more", len(issues)-3))
			break
		}
		leaves = append(leaves, is.String())
	}
	return strings.Join(leaves, "; ")
}

func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
