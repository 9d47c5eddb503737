package clients

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"golang.org/x/net/idna"
)

// CopilotNameMax is where Copilot CLI cuts a tool's name, prefix
// included.
const CopilotNameMax = 64

// copilotName is the name Copilot CLI 1.0.102 gives an MCP tool, as
// observed on the wire: a tool name with characters outside ASCII
// becomes punycode (xn--…, each dot-separated label on its own), each
// character outside [a-zA-Z0-9_-] then becomes -, the server's name and
// a - go before it, and the whole is cut to 64 characters.
func copilotName(server, tool string) (name string, cut int) {
	name = copilotSanitize(server) + "-" + copilotSanitize(tool)
	if len(name) > CopilotNameMax {
		return name[:CopilotNameMax], len(name)
	}
	return name, 0
}

func copilotSanitize(s string) string {
	if p, err := idna.Punycode.ToASCII(s); err == nil {
		s = p
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// copilotSorted is a JSON value with every object's keys sorted, at any
// depth, as Copilot CLI 1.0.102 sends an input schema.
func copilotSorted(raw json.RawMessage) json.RawMessage {
	if ms, ok := object(raw); ok {
		slices.SortStableFunc(ms, func(a, b member) int { return compareUTF16(a.key, b.key) })
		for i := range ms {
			ms[i].val = copilotSorted(ms[i].val)
		}
		return encode(ms)
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && len(arr) > 0 {
		parts := make([]string, len(arr))
		for i, x := range arr {
			parts[i] = string(copilotSorted(x))
		}
		return json.RawMessage("[" + strings.Join(parts, ",") + "]")
	}
	return raw
}

// compareUTF16 orders strings as JavaScript's default sort does.
func compareUTF16(a, b string) int {
	ua, ub := []rune(a), []rune(b)
	return slices.CompareFunc(utf16Units(ua), utf16Units(ub), func(x, y uint16) int { return int(x) - int(y) })
}

func utf16Units(rs []rune) []uint16 {
	var out []uint16
	for _, r := range rs {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// copilotSchema is the input schema Copilot CLI 1.0.102 sends, as
// observed on the wire: keys sorted at every depth; a top-level anyOf or
// oneOf removed, each branch's properties added as {} and the branches
// written into a description "{anyOf: [...]}"; a top-level allOf
// removed, its branches' properties added as they are; properties {}
// added when absent. changed names what the rewrite did ("" for sorting
// alone).
func copilotSchema(raw json.RawMessage) (out json.RawMessage, combinator string) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	ms, ok := object(copilotSorted(tokens.ClientJSON(raw)))
	if !ok {
		return raw, ""
	}
	props, _ := object(memberOf(ms, "properties"))
	for _, comb := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := get(ms, comb)
		if !ok {
			continue
		}
		var branches []json.RawMessage
		if json.Unmarshal(v, &branches) != nil {
			continue
		}
		combinator = comb
		ms = slices.DeleteFunc(ms, func(m member) bool { return m.key == comb })
		for _, b := range branches {
			bp, _ := object(memberOf(membersOf(b), "properties"))
			for _, p := range bp {
				if _, has := get(props, p.key); has {
					continue
				}
				if comb == "allOf" {
					props = append(props, p)
				} else {
					props = append(props, member{p.key, json.RawMessage(`{}`)})
				}
			}
		}
		if len(props) > 0 || comb != "allOf" {
			ms = set(ms, "properties", encodeOrEmpty(props))
		}
		if comb != "allOf" {
			ms = set(ms, "description", tokens.QuoteString("{"+comb+": "+string(v)+"}"))
		}
		break
	}
	if _, ok := get(ms, "properties"); !ok {
		ms = set(ms, "properties", json.RawMessage(`{}`))
	}
	return encode(ms), combinator
}

// membersOf is an object's members, none for anything else.
func membersOf(raw json.RawMessage) []member {
	ms, _ := object(raw)
	return ms
}

// memberOf is the value of key, nil where it is absent.
func memberOf(ms []member, key string) json.RawMessage {
	v, _ := get(ms, key)
	return v
}

// encodeOrEmpty is the members as an object, {} for none.
func encodeOrEmpty(ms []member) json.RawMessage {
	if len(ms) == 0 {
		return json.RawMessage(`{}`)
	}
	return encode(ms)
}

func (v *View) copilot(in Input) {
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Description: t.Description}
		shown, long := copilotName(in.Server, t.Name)
		e.Shown = shown
		named := "named " + shown
		if long == 0 && shown != in.Server+"-"+t.Name {
			named += " (characters outside ASCII as punycode, then each outside [a-zA-Z0-9_-] made -)"
		}
		e.Effects = append(e.Effects, Effect{"copilot/prefix", named})
		if long > 0 {
			e.Effects = append(e.Effects, Effect{"copilot/name-length", fmt.Sprintf("a name of %d characters cut to %d", long, CopilotNameMax)})
		}
		schema, comb := copilotSchema(t.InputSchema)
		e.Schema = schema
		switch comb {
		case "":
			// Key order aside, the one change left is properties added.
			if _, has := get(membersOf(tokens.ClientJSON(t.InputSchema)), "properties"); !has {
				e.Effects = append(e.Effects, Effect{"copilot/schema", "properties: {} added to the input schema"})
			}
		case "allOf":
			e.Effects = append(e.Effects, Effect{"copilot/schema", "the top-level allOf removed, its branches' properties merged into properties"})
		default:
			e.Effects = append(e.Effects, Effect{"copilot/schema", "the top-level " + comb + " removed: its branches' properties added as {}, the branches written into the schema's description"})
		}
		e.Tokens = definition(e.Shown, e.Description, e.Schema)
		v.Tools = append(v.Tools, e)
	}
	v.total()
	v.Notes = append(v.Notes, Effect{"copilot/result-limits", CopilotResultNote})
}

// CopilotResultNote says what Copilot CLI did with a long result.
const CopilotResultNote = "a 300 KB result reached the model as \"Output too large to read at once (300.0 KB). Saved to: PATH\", advice to read the file with grep, head/tail or jq, and \"Preview (first 500 chars):\" with its first 500 characters; where the limit lies was not observed"
