package clients

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// opencodeName is the name opencode 1.18.33 gives an MCP tool: server and
// tool joined with _, each UTF-16 code unit outside [a-zA-Z0-9_-] made _
// (JavaScript's replace without the u flag).
func opencodeName(server, tool string) string {
	return opencodeSanitize(server) + "_" + opencodeSanitize(tool)
}

func opencodeSanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteString(strings.Repeat("_", len(utf16.Encode([]rune{r}))))
		}
	}
	return b.String()
}

// opencodeSchema is the input schema opencode 1.18.33 sends, as observed
// on the wire: the MCP SDK's parse puts type, properties and required
// first (in that order, those present) and the other keys after them as
// served; opencode then sets type object, properties ({} when absent,
// appended) and additionalProperties false (in its place if present,
// else appended).
func opencodeSchema(raw json.RawMessage) json.RawMessage {
	ms, ok := object(raw)
	if !ok {
		ms = nil
	}
	var out []member
	for _, k := range []string{"type", "properties", "required"} {
		if v, ok := get(ms, k); ok {
			out = append(out, member{k, v})
		}
	}
	for _, m := range ms {
		if m.key != "type" && m.key != "properties" && m.key != "required" {
			out = append(out, m)
		}
	}
	out = set(out, "type", json.RawMessage(`"object"`))
	if _, ok := get(out, "properties"); !ok {
		out = set(out, "properties", json.RawMessage(`{}`))
	}
	out = set(out, "additionalProperties", json.RawMessage(`false`))
	return encode(out)
}

// opencodeValidList reports whether the MCP SDK in opencode 1.18.33
// takes the list: a tool whose inputSchema is not of type "object" fails
// its parse of the whole tools/list result.
func opencodeValidList(tools []json.RawMessage) (bad string, ok bool) {
	for _, t := range tools {
		name, _ := memberString(t, "name")
		in, has := object(t)
		if !has {
			return name, false
		}
		schema, has := get(in, "inputSchema")
		if !has {
			return name, false
		}
		if typ, _ := memberString(schema, "type"); typ != "object" {
			return name, false
		}
	}
	return "", true
}

func (v *View) opencode(in Input) {
	raws := make([]json.RawMessage, len(in.Tools))
	for i := range in.Tools {
		raws[i] = raw(&in.Tools[i])
	}
	bad, valid := opencodeValidList(raws)
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Shown: opencodeName(in.Server, t.Name), Description: t.Description}
		named := "named " + e.Shown
		if e.Shown != in.Server+"_"+t.Name {
			named += " (each character outside [a-zA-Z0-9_-] made _)"
		}
		e.Effects = append(e.Effects, Effect{"opencode/prefix", named})
		e.Schema = opencodeSchema(t.InputSchema)
		if string(e.Schema) != string(tokens.ClientJSON(t.InputSchema)) {
			e.Effects = append(e.Effects, Effect{"opencode/schema", "input schema sent with type object, properties and additionalProperties: false set"})
		}
		if !valid {
			e.Dropped = fmt.Sprintf("tool %q has no inputSchema of type \"object\": opencode's MCP SDK refuses the whole list, so none of this server's tools reach the model", bad)
			e.Effects = append(e.Effects, Effect{"opencode/invalid-list", e.Dropped})
		}
		e.Tokens = definition(e.Shown, e.Description, e.Schema)
		v.Tools = append(v.Tools, e)
	}
	v.total()
	v.Notes = append(v.Notes, Effect{"opencode/result-limits", OpenCodeResultNote})
}

// OpenCodeResultNote says what opencode did with a long result.
const OpenCodeResultNote = "a 300 KB result (one line) reached the model as \"...N bytes truncated...\" and \"The tool call succeeded but the output was truncated. Full output saved to: PATH\", with instructions to have an agent read the file: none of the text itself; where the cut starts was not observed"
