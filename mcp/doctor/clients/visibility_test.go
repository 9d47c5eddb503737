package clients_test

import (
	"testing"

	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// The tools of the visibility cases: one for the model and views (the
// real basic servers' get-time, no visibility), one for views alone, one
// for both spelled out, and the malformed readings clients differ on.
var visibilityTools = []string{
	`{"name":"get-time","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://get-time/mcp-app.html"},"ui/resourceUri":"ui://get-time/mcp-app.html"}}`,
	`{"name":"refresh","description":"for the view","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://a","visibility":["app"]}}}`,
	`{"name":"both","inputSchema":{"type":"object"},"_meta":{"ui":{"visibility":["app","model"]}}}`,
	`{"name":"vis-string","inputSchema":{"type":"object"},"_meta":{"ui":{"visibility":"app"}}}`,
	`{"name":"ui-string","inputSchema":{"type":"object"},"_meta":{"ui":"x"}}`,
}

// kept names the entries of a view that were not dropped.
func kept(v clients.View) map[string]bool {
	out := map[string]bool{}
	for _, e := range v.Tools {
		if e.Dropped == "" {
			out[e.Name] = true
		}
	}
	return out
}

// Source: the MCP Apps specification (2026-01-26): a tool for views alone
// is not the model's; it costs the model nothing.
func caseGenericVisibility(t *testing.T) {
	v := clients.Present(clients.Generic, clients.Input{Server: "s", Tools: tools(t, visibilityTools...)})
	k := kept(v)
	if !k["get-time"] || k["refresh"] || !k["both"] || !k["vis-string"] || !k["ui-string"] {
		t.Errorf("kept %v", k)
	}
	if e := entry(t, v, "refresh"); !has(e, "generic/visibility") {
		t.Errorf("refresh: %+v", e)
	}
	without := clients.Present(clients.Generic, clients.Input{Server: "s", Tools: tools(t,
		visibilityTools[0], visibilityTools[2], visibilityTools[3], visibilityTools[4])})
	if v.Tokens != without.Tokens {
		t.Errorf("the list costs %d with the tool for views alone, %d without it", v.Tokens, without.Tokens)
	}
}

// Source: Claude Code 2.1.328's code: visibility without "model", and a
// _meta.ui or visibility it cannot read, keep the tool from the model.
func caseClaudeVisibility(t *testing.T) {
	v := clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t, visibilityTools...)})
	k := kept(v)
	if !k["get-time"] || k["refresh"] || !k["both"] || k["vis-string"] || k["ui-string"] {
		t.Errorf("kept %v", k)
	}
	for _, name := range []string{"refresh", "vis-string", "ui-string"} {
		if e := entry(t, v, name); !has(e, "claude/visibility") {
			t.Errorf("%s: %+v", name, e)
		}
	}
	if sum := entry(t, v, "get-time").Tokens + entry(t, v, "both").Tokens; v.Tokens != sum {
		t.Errorf("total %d, want the kept tools' %d", v.Tokens, sum)
	}
}

// Source: VS Code's _normalizeTool and its tool contribution: only tools
// whose visibility array has "model" are registered; the 128-tool limit
// counts those.
func caseVSCodeVisibility(t *testing.T) {
	v := clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t, visibilityTools...)})
	k := kept(v)
	if !k["get-time"] || k["refresh"] || !k["both"] || !k["vis-string"] || !k["ui-string"] {
		t.Errorf("kept %v", k)
	}
	if e := entry(t, v, "refresh"); !has(e, "vscode/visibility") {
		t.Errorf("refresh: %+v", e)
	}
	// 128 model tools and one for views alone: nothing is over the limit.
	objs := []string{visibilityTools[1]}
	for i := 0; i < clients.VSCodeMaxTools; i++ {
		objs = append(objs, `{"name":"t`+string(rune('a'+i%26))+string(rune('a'+i/26))+`","description":"d"}`)
	}
	v = clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t, objs...)})
	for _, e := range v.Tools[1:] {
		if e.Dropped != "" {
			t.Fatalf("%s dropped: %s", e.Name, e.Dropped)
		}
	}
}

// Source: Gemini CLI 0.61.0 on the wire: the tool for views alone was
// sent to the model with the others.
func caseGeminiVisibility(t *testing.T) {
	v := clients.Present(clients.Gemini, clients.Input{Server: "s", Tools: tools(t, visibilityTools...)})
	if k := kept(v); len(k) != len(visibilityTools) {
		t.Errorf("kept %v", k)
	}
	if e := entry(t, v, "refresh"); !has(e, "gemini/visibility") {
		t.Errorf("refresh: %+v", e)
	}
	if e := entry(t, v, "get-time"); has(e, "gemini/visibility") {
		t.Errorf("get-time: %+v", e)
	}
}

// Source: Codex 0.169.0 on the wire: the tool for views alone was not
// in the ALL_TOOLS its model read (cli testCodexView).
func caseCodexVisibility(t *testing.T) {
	v := clients.Present(clients.Codex, clients.Input{Server: "s", Tools: tools(t, visibilityTools...)})
	k := kept(v)
	if !k["get-time"] || k["refresh"] || !k["both"] {
		t.Errorf("kept %v", k)
	}
	if e := entry(t, v, "refresh"); !has(e, "codex/visibility") || e.Tokens != 0 {
		t.Errorf("refresh: %+v", e)
	}
	if sum := entry(t, v, "get-time").Tokens + entry(t, v, "both").Tokens + entry(t, v, "vis-string").Tokens + entry(t, v, "ui-string").Tokens; v.Tokens != sum {
		t.Errorf("total %d, want the kept tools' %d", v.Tokens, sum)
	}
}

func init() {
	ruleCases["codex/visibility"] = caseCodexVisibility
	ruleCases["gemini/visibility"] = caseGeminiVisibility
	ruleCases["generic/visibility"] = caseGenericVisibility
	ruleCases["claude/visibility"] = caseClaudeVisibility
	ruleCases["vscode/visibility"] = caseVSCodeVisibility
}
