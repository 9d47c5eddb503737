package clients_test

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// Source: Codex 0.169.0 on the wire (cli testCodexView): get.weather as
// mcp__wx__get_weather, rich-tool as mcp__wx__rich_tool, a 70-character
// name whole.
func caseCodexPrefix(t *testing.T) {
	long := strings.Repeat("n", 70)
	v := clients.Present(clients.Codex, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"forecast","description":"d","inputSchema":{"type":"object"}}`,
		`{"name":"get.weather","inputSchema":{"type":"object"}}`,
		`{"name":"rich-tool","inputSchema":{"type":"object"}}`,
		`{"name":"`+long+`","inputSchema":{"type":"object"}}`)})
	for name, want := range map[string]string{"forecast": "mcp__wx__forecast", "get.weather": "mcp__wx__get_weather", "rich-tool": "mcp__wx__rich_tool", long: "mcp__wx__" + long} {
		if e := entry(t, v, name); e.Shown != want || !has(e, "codex/prefix") {
			t.Errorf("%s: shown %q, want %q: %+v", name, e.Shown, want, e.Effects)
		}
	}
	if e := entry(t, v, "get.weather"); !strings.Contains(e.Effects[0].Text, "made _") {
		t.Errorf("get.weather's effect does not say it was renamed: %+v", e.Effects)
	}
}

// Source: Codex 0.169.0 on the wire: each of these declarations is what
// ALL_TOOLS gave back for the schema.
func caseCodexCodeMode(t *testing.T) {
	decl := func(name, args string) string {
		return "\n\nexec tool declaration:\n```ts\ndeclare const tools: { mcp__wx__" + name + "(args: " + args + "): Promise<CallToolResult>; };\n```"
	}
	v := clients.Present(clients.Codex, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"big","description":"A 300 KB result.","inputSchema":{"type":"object"}}`,
		`{"name":"either","description":"Finds.","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}}`,
		`{"name":"maybe","description":"nullable","inputSchema":{"type":"object","properties":{"v":{"type":["string","null"],"description":"d"}}}}`,
		`{"name":"ns","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"multi\nline"}},"additionalProperties":false}}`,
		`{"name":"rich","description":"Rich.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"count"},"x":{"type":"number"},"b":{"type":"boolean"},"arr":{"type":"array","items":{"type":"string"}},"e":{"type":"string","enum":["a","b"]},"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},"any":{}},"required":["n","e"]}}`)})
	for name, want := range map[string]string{
		"big":    "A 300 KB result." + decl("big", "{ [key: string]: unknown; }"),
		"either": "Finds." + decl("either", "{ id: string; } | { name: string; }"),
		"maybe":  "nullable" + decl("maybe", "{\n  // d\n  v?: string | null;\n}"),
		"ns":     decl("ns", "{\n  // multi\n  // line\n  q?: string;\n}"),
		"rich":   "Rich." + decl("rich", "{\n  any?: unknown;\n  arr?: Array<string>;\n  b?: boolean;\n  e: \"a\" | \"b\";\n  // count\n  n: number;\n  o?: { k: string; };\n  x?: number;\n}"),
	} {
		e := entry(t, v, name)
		if e.Description != want {
			t.Errorf("%s: description\n%q\nwant\n%q", name, e.Description, want)
		}
		if e.Schema != nil || !has(e, "codex/code-mode") {
			t.Errorf("%s: schema %s, effects %+v", name, e.Schema, e.Effects)
		}
	}
}

// Source: Codex 0.169.0 on the wire: only the namespace at first.
func caseCodexDeferred(t *testing.T) {
	v := clients.Present(clients.Codex, clients.Input{Server: "wx", Tools: tools(t, `{"name":"a"}`)})
	if len(v.Notes) != 2 || v.Notes[0].Rule != "codex/deferred" || !strings.Contains(v.Notes[0].Text, "namespace mcp__wx") {
		t.Errorf("notes: %+v", v.Notes)
	}
}

// Source: Codex 0.169.0 on the wire (cli testCodexView checks the note
// against what the model got).
func caseCodexResultLimits(t *testing.T) {
	v := clients.Present(clients.Codex, clients.Input{Server: "wx", Tools: tools(t, `{"name":"a"}`)})
	if len(v.Notes) != 2 || v.Notes[1].Rule != "codex/result-limits" || v.Notes[1].Text != clients.CodexResultNote {
		t.Errorf("notes: %+v", v.Notes)
	}
}
