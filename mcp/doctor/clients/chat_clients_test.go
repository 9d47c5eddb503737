package clients_test

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// Source: opencode 1.18.33 on the wire (cli testOpenCodeView, and by
// hand: héllo wörld, ns/slash:colon).
func caseOpenCodePrefix(t *testing.T) {
	long := strings.Repeat("n", 70)
	v := clients.Present(clients.OpenCode, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"get.weather","inputSchema":{"type":"object"}}`,
		`{"name":"rich-tool","inputSchema":{"type":"object"}}`,
		`{"name":"ns/slash:colon","inputSchema":{"type":"object"}}`,
		`{"name":"héllo wörld","inputSchema":{"type":"object"}}`,
		`{"name":"`+long+`","inputSchema":{"type":"object"}}`)})
	for name, want := range map[string]string{"get.weather": "wx_get_weather", "rich-tool": "wx_rich-tool",
		"ns/slash:colon": "wx_ns_slash_colon", "héllo wörld": "wx_h_llo_w_rld", long: "wx_" + long} {
		if e := entry(t, v, name); e.Shown != want || !has(e, "opencode/prefix") {
			t.Errorf("%s: shown %q, want %q", name, e.Shown, want)
		}
	}
}

// Source: opencode 1.18.33 on the wire: each schema below as it was sent.
func caseOpenCodeSchema(t *testing.T) {
	v := clients.Present(clients.OpenCode, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"big","description":"d","inputSchema":{"type":"object"}}`,
		`{"name":"either","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]}]}}`,
		`{"name":"maybe","inputSchema":{"type":"object","properties":{"v":{"type":["string","null"],"description":"d"}}}}`,
		`{"name":"opt","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true,"required":["a"]}}`,
		`{"name":"noprops","inputSchema":{"required":[],"type":"object","additionalProperties":{"type":"string"}}}`,
		`{"name":"hello","inputSchema":{"type":"object","$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"string"}}}}`)})
	for name, want := range map[string]string{
		"big":     `{"type":"object","properties":{},"additionalProperties":false}`,
		"either":  `{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]}],"properties":{},"additionalProperties":false}`,
		"maybe":   `{"type":"object","properties":{"v":{"type":["string","null"],"description":"d"}},"additionalProperties":false}`,
		"opt":     `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
		"noprops": `{"type":"object","required":[],"additionalProperties":false,"properties":{}}`,
		"hello":   `{"type":"object","properties":{"a":{"type":"string"}},"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false}`,
	} {
		if e := entry(t, v, name); string(e.Schema) != want || !has(e, "opencode/schema") || e.Dropped != "" {
			t.Errorf("%s: schema\n  %s\nwant\n  %s", name, e.Schema, want)
		}
	}
	if e := entry(t, v, "big"); e.Description != "d" {
		t.Errorf("big: description %q", e.Description)
	}
}

// Source: opencode 1.18.33 on the wire, by hand: with one tool whose
// inputSchema had no type, no tool of the server was sent.
func caseOpenCodeInvalidList(t *testing.T) {
	v := clients.Present(clients.OpenCode, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"fine","inputSchema":{"type":"object"}}`,
		`{"name":"opt","inputSchema":{"properties":{"a":{"type":"string"}}}}`)})
	for _, e := range v.Tools {
		if e.Dropped == "" || !has(e, "opencode/invalid-list") || !strings.Contains(e.Dropped, `tool "opt"`) {
			t.Errorf("%s: kept: %+v", e.Name, e)
		}
	}
	if v.Tokens != 0 {
		t.Errorf("the view counts %d tokens of a list the client refuses", v.Tokens)
	}
}

// Source: Copilot CLI 1.0.102 on the wire (cli testCopilotView, and by
// hand: the names below).
func caseCopilotPrefix(t *testing.T) {
	v := clients.Present(clients.Copilot, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"get.weather","inputSchema":{"type":"object"}}`,
		`{"name":"under_score","inputSchema":{"type":"object"}}`,
		`{"name":"UPPER.Case","inputSchema":{"type":"object"}}`,
		`{"name":"a--b..c","inputSchema":{"type":"object"}}`,
		`{"name":"ns/slash:colon","inputSchema":{"type":"object"}}`,
		`{"name":"héllo wörld","inputSchema":{"type":"object"}}`,
		`{"name":"emoji😀x","inputSchema":{"type":"object"}}`)})
	for name, want := range map[string]string{"get.weather": "wx-get-weather", "under_score": "wx-under_score", "UPPER.Case": "wx-UPPER-Case",
		"a--b..c": "wx-a--b--c", "ns/slash:colon": "wx-ns-slash-colon", "héllo wörld": "wx-xn--hllo-wrld-b4a2m", "emoji😀x": "wx-xn--emojix-7v74e"} {
		if e := entry(t, v, name); e.Shown != want || !has(e, "copilot/prefix") {
			t.Errorf("%s: shown %q, want %q", name, e.Shown, want)
		}
	}
}

// Source: Copilot CLI 1.0.102 on the wire: a 70-character name of server
// wx sent as its first 64 characters.
func caseCopilotNameLength(t *testing.T) {
	long := strings.Repeat("n", 35) + strings.Repeat("z", 35)
	v := clients.Present(clients.Copilot, clients.Input{Server: "wx", Tools: tools(t, `{"name":"`+long+`","inputSchema":{"type":"object"}}`)})
	if e := entry(t, v, long); e.Shown != "wx-"+long[:61] || !has(e, "copilot/name-length") {
		t.Errorf("shown %q", e.Shown)
	}
}

// Source: Copilot CLI 1.0.102 on the wire: each schema below as it was
// sent.
func caseCopilotSchema(t *testing.T) {
	v := clients.Present(clients.Copilot, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"big","description":"d","inputSchema":{"type":"object"}}`,
		`{"name":"either","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}}`,
		`{"name":"upper","inputSchema":{"type":"object","oneOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}}}],"properties":{"c":{"type":"string"}}}}`,
		`{"name":"emoji","inputSchema":{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}]}}`,
		`{"name":"rich","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"count"},"x":{"type":"number"},"o":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},"any":{}},"required":["n"]}}`,
		`{"name":"noprops","inputSchema":{"required":[],"type":"object","additionalProperties":{"type":"string"}}}`,
		`{"name":"under","inputSchema":{"type":"object","properties":{"p":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}`)})
	for name, want := range map[string]string{
		"big":     `{"type":"object","properties":{}}`,
		"either":  `{"type":"object","properties":{"id":{},"name":{}},"description":"{anyOf: [{\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]},{\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}]}"}`,
		"upper":   `{"properties":{"c":{"type":"string"},"a":{},"b":{}},"type":"object","description":"{oneOf: [{\"properties\":{\"a\":{\"type\":\"string\"}}},{\"properties\":{\"b\":{\"type\":\"integer\"}}}]}"}`,
		"emoji":   `{"type":"object","properties":{"a":{"type":"string"}}}`,
		"rich":    `{"properties":{"any":{},"n":{"description":"count","type":"integer"},"o":{"properties":{"k":{"type":"string"}},"required":["k"],"type":"object"},"x":{"type":"number"}},"required":["n"],"type":"object"}`,
		"noprops": `{"additionalProperties":{"type":"string"},"required":[],"type":"object","properties":{}}`,
		"under":   `{"properties":{"p":{"anyOf":[{"type":"string"},{"type":"null"}]}},"type":"object"}`,
	} {
		if e := entry(t, v, name); string(e.Schema) != want {
			t.Errorf("%s: schema\n  %s\nwant\n  %s", name, e.Schema, want)
		}
	}
	for _, name := range []string{"either", "big", "noprops"} {
		if e := entry(t, v, name); !has(e, "copilot/schema") {
			t.Errorf("%s: effects %+v", name, e.Effects)
		}
	}
	// Sorting keys alone changes no value: not named a rewrite.
	if e := entry(t, v, "rich"); has(e, "copilot/schema") {
		t.Errorf("rich: effects %+v", e.Effects)
	}
}

// Source: opencode 1.18.33 on the wire (cli testOpenCodeView checks the
// note against what the model got).
func caseOpenCodeResultLimits(t *testing.T) {
	v := clients.Present(clients.OpenCode, clients.Input{Server: "wx", Tools: tools(t, `{"name":"a","inputSchema":{"type":"object"}}`)})
	if len(v.Notes) != 1 || v.Notes[0].Rule != "opencode/result-limits" || v.Notes[0].Text != clients.OpenCodeResultNote {
		t.Errorf("notes: %+v", v.Notes)
	}
}

// Source: Copilot CLI 1.0.102 on the wire (cli testCopilotView checks the
// note against what the model got).
func caseCopilotResultLimits(t *testing.T) {
	v := clients.Present(clients.Copilot, clients.Input{Server: "wx", Tools: tools(t, `{"name":"a","inputSchema":{"type":"object"}}`)})
	if len(v.Notes) != 1 || v.Notes[0].Rule != "copilot/result-limits" || v.Notes[0].Text != clients.CopilotResultNote {
		t.Errorf("notes: %+v", v.Notes)
	}
}
