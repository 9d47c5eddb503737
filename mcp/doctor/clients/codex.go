package clients

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// codexIdentChar is what Codex 0.169.0 keeps of a name in code mode,
// where each tool is a method of a JavaScript object: anything else
// becomes _.
var codexIdentChar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_]`) })

// codexName is the name Codex gives an MCP tool for its model.
func codexName(server, tool string) string {
	return codexIdentChar().ReplaceAllString("mcp__"+server+"__"+tool, "_")
}

// codexDescription is the description Codex's model gets of a tool in
// code mode: the server's, then the tool as a TypeScript declaration of
// its input.
func codexDescription(shown, description string, input, output json.RawMessage) string {
	result := "CallToolResult"
	if len(output) > 0 {
		if ts := codexTS(output, ""); ts != "unknown" {
			result = "CallToolResult<" + ts + ">"
		}
	}
	args := "unknown"
	if len(input) > 0 {
		args = codexTS(input, "")
	}
	return description + "\n\nexec tool declaration:\n```ts\ndeclare const tools: { " + shown + "(args: " + args + "): Promise<" + result + ">; };\n```"
}

// codexTSIdent is a property name TypeScript takes unquoted.
var codexTSIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })

// codexTS renders a JSON Schema as the TypeScript type Codex 0.169.0
// declares for it, as observed on the wire: enum and anyOf/oneOf as
// unions, a type list as a union, integer as number, array as Array<T>,
// an object's properties sorted by name (optional unless required),
// one per line with their descriptions as comments when any has one,
// and an object without properties as an index signature unless
// additionalProperties is false. What it does not know is unknown.
func codexTS(raw json.RawMessage, indent string) string {
	ms, ok := object(raw)
	if !ok || len(ms) == 0 {
		return "unknown"
	}
	if v, ok := get(ms, "enum"); ok {
		var vals []json.RawMessage
		if json.Unmarshal(v, &vals) == nil && len(vals) > 0 {
			parts := make([]string, len(vals))
			for i, x := range vals {
				parts[i] = string(tokens.ClientJSON(x))
			}
			return strings.Join(parts, " | ")
		}
	}
	for _, comb := range []string{"anyOf", "oneOf"} {
		if v, ok := get(ms, comb); ok {
			var branches []json.RawMessage
			if json.Unmarshal(v, &branches) == nil && len(branches) > 0 {
				parts := make([]string, len(branches))
				for i, b := range branches {
					parts[i] = codexTS(b, indent)
				}
				return strings.Join(parts, " | ")
			}
		}
	}
	var types []string
	if v, ok := get(ms, "type"); ok {
		var one string
		if json.Unmarshal(v, &one) == nil {
			types = []string{one}
		} else {
			_ = json.Unmarshal(v, &types)
		}
	}
	if len(types) == 0 {
		if _, ok := get(ms, "properties"); ok {
			types = []string{"object"}
		}
	}
	if len(types) == 0 {
		return "unknown"
	}
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = codexTSType(t, ms, indent)
	}
	return strings.Join(parts, " | ")
}

func codexTSType(t string, ms []member, indent string) string {
	switch t {
	case "string", "boolean", "null":
		return t
	case "integer", "number":
		return "number"
	case "array":
		items, ok := get(ms, "items")
		if !ok {
			return "Array<unknown>"
		}
		return "Array<" + codexTS(items, indent) + ">"
	case "object":
		return codexTSObject(ms, indent)
	}
	return "unknown"
}

func codexTSObject(ms []member, indent string) string {
	props := map[string]json.RawMessage{}
	if v, ok := get(ms, "properties"); ok {
		if pm, ok := object(v); ok {
			for _, m := range pm {
				props[m.key] = m.val
			}
		}
	}
	if len(props) == 0 {
		if ap, ok := get(ms, "additionalProperties"); ok && string(tokens.ClientJSON(ap)) == "false" {
			return "{}"
		}
		return "{ [key: string]: unknown; }"
	}
	var required []string
	if v, ok := get(ms, "required"); ok {
		_ = json.Unmarshal(v, &required)
	}
	keys := make([]string, 0, len(props))
	commented := false
	for k, v := range props {
		keys = append(keys, k)
		if d, ok := memberString(v, "description"); ok && d != "" {
			commented = true
		}
	}
	slices.Sort(keys)
	inner := indent + "  "
	var b strings.Builder
	if commented {
		b.WriteString("{\n")
	} else {
		b.WriteString("{ ")
	}
	for _, k := range keys {
		name := k
		if !codexTSIdent().MatchString(k) {
			name = string(tokens.QuoteString(k))
		}
		if !slices.Contains(required, k) {
			name += "?"
		}
		if !commented {
			b.WriteString(name + ": " + codexTS(props[k], indent) + "; ")
			continue
		}
		if d, ok := memberString(props[k], "description"); ok && d != "" {
			for line := range strings.SplitSeq(d, "\n") {
				b.WriteString(inner + "// " + line + "\n")
			}
		}
		b.WriteString(inner + name + ": " + codexTS(props[k], inner) + ";\n")
	}
	if commented {
		b.WriteString(indent + "}")
	} else {
		b.WriteString("}")
	}
	return b.String()
}
