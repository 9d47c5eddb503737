package clients_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// tools parses tool objects as a tools/list result would carry them.
func tools(t *testing.T, objs ...string) []mcp.Tool {
	t.Helper()
	var raws []json.RawMessage
	for _, o := range objs {
		raws = append(raws, json.RawMessage(o))
	}
	out := mcp.ParseTools(raws)
	if len(out) != len(objs) {
		t.Fatalf("parsed %d of %d tools", len(out), len(objs))
	}
	return out
}

// entry is the view's entry for the server's tool name.
func entry(t *testing.T, v clients.View, name string) clients.Entry {
	t.Helper()
	for _, e := range v.Tools {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("%s view has no %s: %+v", v.Client, name, v.Tools)
	return clients.Entry{}
}

// has reports whether the entry carries an effect of rule.
func has(e clients.Entry, rule string) bool {
	for _, x := range append(append([]clients.Effect(nil), e.Effects...), e.Hints...) {
		if x.Rule == rule {
			return true
		}
	}
	return false
}

// ruleCases are the rules' cases: one a rule, each saying its sources.
var ruleCases = map[string]func(*testing.T){
	"generic/as-served":         caseGenericAsServed,
	"claude/prefix":             caseClaudePrefix,
	"claude/name-pattern":       caseClaudeNamePattern,
	"claude/description-cut":    caseClaudeDescriptionCut,
	"claude/schema-combinators": caseClaudeSchemaCombinators,
	"gemini/prefix":             caseGeminiPrefix,
	"gemini/name-length":        caseGeminiNameLength,
	"gemini/nullable":           caseGeminiNullable,
	"gemini/wait-for-previous":  caseGeminiWaitForPrevious,
	"gemini/result-limits":      caseGeminiResultLimits,
	"codex/prefix":              caseCodexPrefix,
	"codex/deferred":            caseCodexDeferred,
	"codex/code-mode":           caseCodexCodeMode,
	"codex/result-limits":       caseCodexResultLimits,
	"opencode/prefix":           caseOpenCodePrefix,
	"opencode/schema":           caseOpenCodeSchema,
	"opencode/invalid-list":     caseOpenCodeInvalidList,
	"copilot/prefix":            caseCopilotPrefix,
	"copilot/name-length":       caseCopilotNameLength,
	"copilot/schema":            caseCopilotSchema,
	"opencode/result-limits":    caseOpenCodeResultLimits,
	"copilot/result-limits":     caseCopilotResultLimits,
	"claude/tool-search":        caseClaudeToolSearch,
	"claude/result-limits":      caseClaudeResultLimits,
	"claude/list-changed":       caseClaudeListChanged,
	"chatgpt/cached-list":       caseChatGPTCachedList,
	"chatgpt/read-only-hint":    caseChatGPTReadOnlyHint,
	"chatgpt/hints":             caseChatGPTHints,
	"chatgpt/meta":              caseChatGPTMeta,
	"vscode/prefix":             caseVSCodePrefix,
	"vscode/name-characters":    caseVSCodeNameCharacters,
	"vscode/name-length":        caseVSCodeNameLength,
	"vscode/empty-description":  caseVSCodeEmptyDescription,
	"vscode/tool-count":         caseVSCodeToolCount,
	"cursor/combined-length":    caseCursorCombinedLength,
	"cursor/first-40":           caseCursorFirst40,
}

// TestClientRules runs each rule's case.
func TestClientRules(t *testing.T) {
	for id, run := range ruleCases {
		t.Run(id, func(t *testing.T) {
			r, ok := clients.Lookup(id)
			if !ok || len(r.Sources) == 0 || r.Says == "" {
				t.Fatalf("rule %s: %+v", id, r)
			}
			run(t)
		})
	}
}

func caseGenericAsServed(t *testing.T) {
	v := clients.Present(clients.Generic, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"a.b","description":"x","inputSchema":{"type":"object"}}`,
		`{"name":"a.b","inputSchema":{"type":"object"}}`)})
	if len(v.Tools) != 2 || v.Tools[0].Shown != "a.b" || v.Tools[0].Dropped != "" || has(v.Tools[0], "generic/as-served") || !has(v.Tools[1], "generic/as-served") {
		t.Errorf("generic: %+v", v.Tools)
	}
	if sum := v.Tools[0].Tokens + v.Tools[1].Tokens; v.Tokens < sum || v.Tokens > sum+4 {
		t.Errorf("total %d of %+v", v.Tokens, v.Tools)
	}
}

// Source: Claude Code 2.1.328's code (normalizeMcpServerName) and its
// request on the wire: get.weather of server wx is mcp__wx__get_weather,
// sent, not refused.
func caseClaudePrefix(t *testing.T) {
	v := clients.Present(clients.Claude, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"echo","inputSchema":{"type":"object"}}`, `{"name":"get.weather","inputSchema":{"type":"object"}}`)})
	if e := entry(t, v, "echo"); e.Shown != "mcp__wx__echo" || e.Dropped != "" || !has(e, "claude/prefix") {
		t.Errorf("echo: %+v", e)
	}
	if e := entry(t, v, "get.weather"); e.Shown != "mcp__wx__get_weather" || e.Refused || e.Dropped != "" || has(e, "claude/name-pattern") {
		t.Errorf("get.weather: %+v", e)
	}
	if e := entry(t, clients.Present(clients.Claude, clients.Input{Server: "my.srv", Tools: tools(t, `{"name":"a b"}`)}), "a b"); e.Shown != "mcp__my_srv__a_b" {
		t.Errorf("a server name with a dot: %+v", e)
	}
}

// Source: the Anthropic API's name pattern; anthropics/claude-code#2412.
// A 70-character name is over 64 with any prefix.
func caseClaudeNamePattern(t *testing.T) {
	long := strings.Repeat("x", 64-len("mcp__srv__")) // exactly 64 with the prefix
	seventy := strings.Repeat("n", 70)
	v := clients.Present(clients.Claude, clients.Input{Server: "srv", Tools: tools(t,
		`{"name":"`+long+`","inputSchema":{"type":"object"}}`,
		`{"name":"`+long+`y","inputSchema":{"type":"object"}}`,
		`{"name":"`+seventy+`","inputSchema":{"type":"object"}}`)})
	if e := entry(t, v, long); e.Refused || e.Dropped != "" {
		t.Errorf("64 characters with the prefix: %+v", e)
	}
	if e := entry(t, v, long+"y"); !e.Refused || !strings.Contains(e.Dropped, "65 characters") || !has(e, "claude/name-pattern") {
		t.Errorf("65 characters: %+v", e)
	}
	if e := entry(t, v, seventy); !e.Refused || !strings.Contains(e.Dropped, "80 characters") {
		t.Errorf("70 characters: %+v", e)
	}
}

// Source: Claude Code 2.1.328's code (Gae: 4096, 16384 once loaded
// through tool search; ti appends "… [truncated]") and the wire (a
// 3,000-character description sent whole).
func caseClaudeDescriptionCut(t *testing.T) {
	d3000 := strings.Repeat("d", 3000)
	d5000 := strings.Repeat("é", 5000) // 5000 characters, 10000 bytes
	d20000 := strings.Repeat("w", 20000)
	v := clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"d3000","description":"`+d3000+`"}`,
		`{"name":"d5000","description":"`+d5000+`"}`,
		`{"name":"d5000eager","description":"`+d5000+`","_meta":{"anthropic/alwaysLoad":true}}`,
		`{"name":"d20000","description":"`+d20000+`"}`)})
	if e := entry(t, v, "d3000"); e.Description != d3000 || has(e, "claude/description-cut") {
		t.Errorf("3,000 characters were cut: %d, %+v", len(e.Description), e.Effects)
	}
	if e := entry(t, v, "d5000"); e.Description != d5000 || !has(e, "claude/description-cut") {
		t.Errorf("5,000 characters of a deferred tool (cut at 16,384): %d characters, %+v", len([]rune(e.Description)), e.Effects)
	}
	if e := entry(t, v, "d5000eager"); e.Description != strings.Repeat("é", 4096)+"\u2026 [truncated]" {
		t.Errorf("5,000 characters of an alwaysLoad tool: %d characters", len([]rune(e.Description)))
	}
	if e := entry(t, v, "d20000"); e.Description != d20000[:16384]+"\u2026 [truncated]" || !has(e, "claude/description-cut") {
		t.Errorf("20,000 characters: %d", len(e.Description))
	}
	// JavaScript counts UTF-16 code units: an emoji is two.
	emoji := strings.Repeat("😀", 3000)
	e := entry(t, clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t, `{"name":"e","description":"`+emoji+`","_meta":{"anthropic/alwaysLoad":true}}`)}), "e")
	if e.Description != strings.Repeat("😀", 2048)+"\u2026 [truncated]" {
		t.Errorf("3,000 emoji cut to %d", len([]rune(e.Description)))
	}
}

// Source: Claude Code 2.1.328 on the wire behind a loopback
// ANTHROPIC_BASE_URL: MCP tools still deferred, with tool search.
func caseClaudeToolSearch(t *testing.T) {
	v := clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"a","_meta":{"anthropic/alwaysLoad":true}}`, `{"name":"b"}`)})
	if !has(entry(t, v, "a"), "claude/tool-search") || has(entry(t, v, "b"), "claude/tool-search") {
		t.Errorf("alwaysLoad: %+v", v.Tools)
	}
	if len(v.Notes) == 0 || v.Notes[0].Rule != "claude/tool-search" || !strings.Contains(v.Notes[0].Text, "(1 marked alwaysLoad)") ||
		!strings.Contains(v.Notes[0].Text, "also behind a non-first-party ANTHROPIC_BASE_URL") {
		t.Errorf("notes: %+v", v.Notes)
	}
	r, _ := clients.Lookup("claude/tool-search")
	if strings.Contains(r.Says, "off on") {
		t.Errorf("the rule still says tool search is off somewhere: %q", r.Says)
	}
}

// Source: Claude Code 2.1.328's code and the wire: a 300 KB result
// reached the model as "Error: result (307,200 characters across 1 line)
// exceeds maximum allowed tokens. Output has been saved to …", not
// refused.
func caseClaudeResultLimits(t *testing.T) {
	v := clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t, `{"name":"a","_meta":{"anthropic/maxResultSizeChars":200000}}`)})
	if e := entry(t, v, "a"); !has(e, "claude/result-limits") || !strings.Contains(e.Hints[0].Text, "200000") {
		t.Errorf("maxResultSizeChars: %+v", e.Hints)
	}
	found := false
	for _, n := range v.Notes {
		found = found || n.Rule == "claude/result-limits" && strings.Contains(n.Text, "25000") &&
			strings.Contains(n.Text, "exceeds maximum allowed tokens. Output has been saved to PATH.") && !strings.Contains(n.Text, "refused")
	}
	if !found {
		t.Errorf("notes: %+v", v.Notes)
	}
	r, _ := clients.Lookup("claude/result-limits")
	if strings.Contains(r.Says, "refuses") {
		t.Errorf("the rule still says a long result is refused: %q", r.Says)
	}
}

// Source: Claude Code 2.1.328's code (m5a, Sn, Hes) and the wire: a
// top-level anyOf became {properties, required: []} with a note.
func caseClaudeSchemaCombinators(t *testing.T) {
	v := clients.Present(clients.Claude, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"find","description":"Finds a thing.","inputSchema":{"type":"object","anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"},"id":{"type":"integer"}},"required":["name"]}]}}`,
		`{"name":"both","inputSchema":{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"number"}}}],"additionalProperties":false}}`,
		`{"name":"plain","description":"p","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)})
	e := entry(t, v, "find")
	wantSchema := `{"type":"object","properties":{"id":{"anyOf":[{"type":"string"},{"type":"integer"}]},"name":{"type":"string"}},"required":[],"additionalProperties":true}`
	if string(e.Schema) != wantSchema || !has(e, "claude/schema-combinators") {
		t.Errorf("anyOf schema:\n got %s\nwant %s", e.Schema, wantSchema)
	}
	if want := "Input constraint: Provide parameters for at least one of: (id) or (name).\n\nFinds a thing."; e.Description != want {
		t.Errorf("anyOf description %q, want %q", e.Description, want)
	}
	e = entry(t, v, "both")
	if want := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"],"additionalProperties":false}`; string(e.Schema) != want {
		t.Errorf("allOf schema %s", e.Schema)
	}
	if e.Description != "Input constraint: all listed parameters apply together (flattened from a JSON Schema allOf)." {
		t.Errorf("allOf description %q", e.Description)
	}
	if e := entry(t, v, "plain"); has(e, "claude/schema-combinators") || string(e.Schema) != `{"type":"object","properties":{"x":{"type":"string"}}}` || e.Description != "p" {
		t.Errorf("a plain schema changed: %+v", e)
	}
}

// Source: Gemini CLI 0.61.0's code (generateValidName).
func caseGeminiPrefix(t *testing.T) {
	v := clients.Present(clients.Gemini, clients.Input{Server: "wx", Tools: tools(t,
		`{"name":"get.weather","inputSchema":{"type":"object"}}`, `{"name":"a b/c","inputSchema":{"type":"object"}}`)})
	if e := entry(t, v, "get.weather"); e.Shown != "mcp_wx_get.weather" || !has(e, "gemini/prefix") || e.Dropped != "" {
		t.Errorf("get.weather: %+v", e)
	}
	if e := entry(t, v, "a b/c"); e.Shown != "mcp_wx_a_b_c" {
		t.Errorf("a b/c: %+v", e)
	}
	if e := entry(t, clients.Present(clients.Gemini, clients.Input{Server: "mcp_x", Tools: tools(t, `{"name":"t"}`)}), "t"); e.Shown != "mcp_x_t" {
		t.Errorf("a server named mcp_x: %+v", e)
	}
}

// Source: Gemini CLI 0.61.0's code (generateValidName: over 63, the
// first 30 + ... + the last 30).
func caseGeminiNameLength(t *testing.T) {
	seventy := strings.Repeat("a", 35) + strings.Repeat("z", 35)
	fits := strings.Repeat("f", 63-len("mcp_s_"))
	v := clients.Present(clients.Gemini, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"`+seventy+`","inputSchema":{"type":"object"}}`, `{"name":"`+fits+`","inputSchema":{"type":"object"}}`)})
	full := "mcp_s_" + seventy
	if e := entry(t, v, seventy); e.Shown != full[:30]+"..."+full[len(full)-30:] || len(e.Shown) != 63 || !has(e, "gemini/name-length") {
		t.Errorf("70 characters: %q %+v", e.Shown, e.Effects)
	}
	if e := entry(t, v, fits); e.Shown != "mcp_s_"+fits || has(e, "gemini/name-length") {
		t.Errorf("63 characters: %+v", e)
	}
}

// Source: Gemini CLI 0.61.0's code (discoverTools).
func caseGeminiNullable(t *testing.T) {
	v := clients.Present(clients.Gemini, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"n","inputSchema":{"type":"object","properties":{"q":{"type":["string","null"],"description":"d"},"r":{"type":["null","integer"]},"s":{"type":["string","number"]}}}}`)})
	e := entry(t, v, "n")
	want := `{"type":"object","properties":{"q":{"type":"string","description":"d","nullable":true},"r":{"type":"integer","nullable":true},"s":{"type":["string","number"]},"wait_for_previous":`
	if !strings.HasPrefix(string(e.Schema), want) || !has(e, "gemini/nullable") {
		t.Errorf("schema\n got %s\nwant %s…", e.Schema, want)
	}
	if e := entry(t, clients.Present(clients.Gemini, clients.Input{Server: "s", Tools: tools(t, `{"name":"p","inputSchema":{"type":"object"}}`)}), "p"); has(e, "gemini/nullable") {
		t.Errorf("nullable without a type array: %+v", e.Effects)
	}
}

// Source: Gemini CLI 0.61.0's code (DeclarativeTool.getSchema).
func caseGeminiWaitForPrevious(t *testing.T) {
	v := clients.Present(clients.Gemini, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`,
		`{"name":"b","inputSchema":{"anyOf":[{"type":"object"}]}}`)})
	e := entry(t, v, "a")
	if !strings.HasPrefix(string(e.Schema), `{"type":"object","properties":{"x":{"type":"string"},"wait_for_previous":{"type":"boolean","description":"Set to true`) ||
		!strings.HasSuffix(string(e.Schema), `},"required":["x"]}`) || !has(e, "gemini/wait-for-previous") {
		t.Errorf("object schema: %s", e.Schema)
	}
	if e := entry(t, v, "b"); has(e, "gemini/wait-for-previous") || string(e.Schema) != `{"anyOf":[{"type":"object"}]}` {
		t.Errorf("a schema without type object: %s", e.Schema)
	}
}

// Source: Claude Code's MCP docs (Dynamic tool updates);
// anthropics/claude-code#13646. A fact for the doctor's
// profile/claude-list-changed hint, not a change to the list.
func caseClaudeListChanged(t *testing.T) {
	r, _ := clients.Lookup("claude/list-changed")
	if !strings.Contains(r.Says, "refreshes") || !strings.Contains(r.Says, "reported") {
		t.Errorf("says %q", r.Says)
	}
}

// Source: openai/openai-apps-sdk-examples#23.
func caseChatGPTCachedList(t *testing.T) {
	first := tools(t, `{"name":"keep","description":"same"}`, `{"name":"edit","description":"old"}`, `{"name":"gone"}`)
	live := tools(t, `{"name":"keep","description":"same"}`, `{"name":"edit","description":"new and longer than before"}`, `{"name":"new"}`)
	v := clients.Present(clients.ChatGPT, clients.Input{Server: "s", Tools: live, FirstSeen: first})
	if e := entry(t, v, "keep"); e.Stale != "" {
		t.Errorf("unchanged: %+v", e)
	}
	if e := entry(t, v, "edit"); !strings.HasPrefix(e.Stale, "changed") || !has(e, "chatgpt/cached-list") {
		t.Errorf("changed: %+v", e)
	}
	if e := entry(t, v, "new"); !strings.HasPrefix(e.Stale, "added") {
		t.Errorf("added: %+v", e)
	}
	if e := entry(t, v, "gone"); !e.Gone || !strings.HasPrefix(e.Stale, "removed") {
		t.Errorf("removed: %+v", e)
	}
	if v.Stale != 3 {
		t.Errorf("%d stale", v.Stale)
	}
	// What ChatGPT users get costs what the first list cost.
	want := clients.Present(clients.ChatGPT, clients.Input{Server: "s", Tools: first}).Tokens
	if v.Tokens != want {
		t.Errorf("ChatGPT users' list: %d tokens, the first list %d", v.Tokens, want)
	}
	if v := clients.Present(clients.ChatGPT, clients.Input{Server: "s", Tools: live}); v.Stale != 0 {
		t.Errorf("no first list, %d stale", v.Stale)
	}
}

// Source: the Apps SDK reference (Annotations) and "define tools".
func caseChatGPTReadOnlyHint(t *testing.T) {
	v := clients.Present(clients.ChatGPT, clients.Input{Tools: tools(t, `{"name":"r","annotations":{"readOnlyHint":true}}`, `{"name":"w"}`)})
	r, w := entry(t, v, "r"), entry(t, v, "w")
	if !strings.Contains(r.Hints[0].Text, "without asking") || !strings.Contains(w.Hints[0].Text, "confirm") {
		t.Errorf("hints: %+v / %+v", r.Hints, w.Hints)
	}
}

// Source: the Apps SDK reference; modelcontextprotocol/ext-apps#190.
func caseChatGPTHints(t *testing.T) {
	v := clients.Present(clients.ChatGPT, clients.Input{Tools: tools(t, `{"name":"d","annotations":{"destructiveHint":true,"openWorldHint":false}}`, `{"name":"w"}`)})
	if e := entry(t, v, "d"); !has(e, "chatgpt/hints") || !strings.Contains(e.Hints[1].Text, "destructiveHint true, openWorldHint false") {
		t.Errorf("declared: %+v", e.Hints)
	}
	if e := entry(t, v, "w"); !strings.Contains(e.Hints[1].Text, "app review") {
		t.Errorf("missing: %+v", e.Hints)
	}
}

// Source: the Apps SDK reference (_meta fields).
func caseChatGPTMeta(t *testing.T) {
	v := clients.Present(clients.ChatGPT, clients.Input{Tools: tools(t,
		`{"name":"w","annotations":{"readOnlyHint":true},"_meta":{"openai/outputTemplate":"ui://widget/a.html","openai/toolInvocation/invoking":"`+strings.Repeat("x", 65)+`"}}`)})
	e := entry(t, v, "w")
	var texts []string
	for _, h := range e.Hints {
		texts = append(texts, h.Text)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "ui://widget/a.html") || !strings.Contains(all, "65 characters, over 64") {
		t.Errorf("hints: %s", all)
	}
}

// Source: VS Code's McpPrefixGenerator and McpToolName.
func caseVSCodePrefix(t *testing.T) {
	for label, want := range map[string]string{
		"Context7":                   "mcp_context7_",
		"mcp-servers/everything":     "mcp_mcp-servers_e_",
		"My Server":                  "mcp_my_server_",
		"io.github.upstash/context7": "mcp_io.github.ups_",
	} {
		if got := clients.VSCodePrefix(label); got != want || len(got) > clients.VSCodePrefixMax {
			t.Errorf("VSCodePrefix(%q) = %q, want %q", label, got, want)
		}
	}
	v := clients.Present(clients.VSCode, clients.Input{Server: "everything", ServerTitle: "Everything", Tools: tools(t, `{"name":"echo","description":"d"}`)})
	if e := entry(t, v, "echo"); e.Shown != "mcp_everything_echo" || !has(e, "vscode/prefix") {
		t.Errorf("echo: %+v", e)
	}
}

// Source: VS Code's mcpServer.ts _normalizeTool.
func caseVSCodeNameCharacters(t *testing.T) {
	v := clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t, `{"name":"assets/list","description":"d"}`, `{"name":"a.b","description":"d"}`)})
	if e := entry(t, v, "assets/list"); e.Shown != "mcp_s_assets_list" || !has(e, "vscode/name-characters") {
		t.Errorf("a slash: %+v", e)
	}
	if e := entry(t, v, "a.b"); e.Shown != "mcp_s_a_b" {
		t.Errorf("a dot: %+v", e)
	}
}

// Source: VS Code's McpTool (slice to McpToolName.MaxLength);
// microsoft/vscode#243602.
func caseVSCodeNameLength(t *testing.T) {
	base := strings.Repeat("n", 70)
	v := clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t,
		`{"name":"`+base+`1","description":"d"}`, `{"name":"`+base+`2","description":"d"}`)})
	a, b := entry(t, v, base+"1"), entry(t, v, base+"2")
	if len(a.Shown) != 64 || a.Shown != b.Shown || !has(a, "vscode/name-length") {
		t.Errorf("cut: %q %q", a.Shown, b.Shown)
	}
	collide := false
	for _, x := range b.Effects {
		collide = collide || strings.Contains(x.Text, "collide")
	}
	if !collide {
		t.Errorf("no collision said: %+v", b.Effects)
	}
}

// Source: VS Code's mcpServer.ts _normalizeTool.
func caseVSCodeEmptyDescription(t *testing.T) {
	v := clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t, `{"name":"a"}`, `{"name":"b","description":"d"}`)})
	if !has(entry(t, v, "a"), "vscode/empty-description") || has(entry(t, v, "b"), "vscode/empty-description") {
		t.Errorf("%+v", v.Tools)
	}
}

// Source: postmanlabs/postman-mcp-server#26; microsoft/vscode#243944.
func caseVSCodeToolCount(t *testing.T) {
	var objs []string
	for i := 0; i < clients.VSCodeMaxTools+2; i++ {
		objs = append(objs, `{"name":"t`+strings.Repeat("x", i%5)+string(rune('a'+i%26))+`","description":"d"}`)
	}
	v := clients.Present(clients.VSCode, clients.Input{Server: "s", Tools: tools(t, objs...)})
	dropped := 0
	for _, e := range v.Tools {
		if e.Dropped != "" {
			dropped++
		}
	}
	if dropped != 2 || v.Tools[clients.VSCodeMaxTools-1].Dropped != "" || v.Tools[clients.VSCodeMaxTools].Dropped == "" {
		t.Errorf("%d dropped", dropped)
	}
}

// Source: ComposioHQ/composio#2788 (1 + 59 characters were filtered);
// awslabs/mcp#1283.
func caseCursorCombinedLength(t *testing.T) {
	v := clients.Present(clients.Cursor, clients.Input{Server: "g", Tools: tools(t,
		`{"name":"`+strings.Repeat("x", 58)+`"}`, `{"name":"`+strings.Repeat("y", 59)+`"}`)})
	if e := entry(t, v, strings.Repeat("x", 58)); e.Dropped != "" {
		t.Errorf("59 together: %+v", e)
	}
	if e := entry(t, v, strings.Repeat("y", 59)); e.Dropped == "" || !has(e, "cursor/combined-length") {
		t.Errorf("60 together: %+v", e)
	}
	if v.Tokens != entry(t, v, strings.Repeat("x", 58)).Tokens {
		t.Errorf("a dropped tool is counted")
	}
}

// Source: bun913/mcp-testrail#6 (Cursor's docs quoted).
func caseCursorFirst40(t *testing.T) {
	var objs []string
	for i := 0; i < 41; i++ {
		objs = append(objs, `{"name":"t`+string(rune('a'+i%26))+strings.Repeat("z", i/26)+`"}`)
	}
	v := clients.Present(clients.Cursor, clients.Input{Server: "s", Tools: tools(t, objs...)})
	if v.Tools[39].Dropped != "" || !has(v.Tools[40], "cursor/first-40") {
		t.Errorf("the 40th %+v, the 41st %+v", v.Tools[39], v.Tools[40])
	}
}

// Every rule has its case above, and docs/clients.md names every rule and
// every source.
func TestEveryRuleHasACaseAndADoc(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range clients.Rules() {
		if ruleCases[r.ID] == nil {
			t.Errorf("rule %s has no case", r.ID)
		}
		if !strings.Contains(string(doc), "`"+r.ID+"`") {
			t.Errorf("docs/clients.md does not explain %s", r.ID)
		}
		for _, s := range r.Sources {
			if !strings.Contains(string(doc), s.URL) {
				t.Errorf("docs/clients.md lacks %s's source %s", r.ID, s.URL)
			}
		}
	}
	for _, id := range clients.All() {
		if len(clients.RulesOf(id)) == 0 {
			t.Errorf("client %s has no rule", id)
		}
	}
}

// The clientInfo of each captured client (testdata/captures) and of the
// clients named in docs/clients.md picks its view.
func TestForClientInfo(t *testing.T) {
	for _, tc := range []struct {
		info mcp.Implementation
		want clients.ID
	}{
		{mcp.Implementation{Name: "claude-code", Title: "Claude Code"}, clients.Claude},
		{mcp.Implementation{Name: "codex-mcp-client", Title: "Codex"}, clients.Codex},
		{mcp.Implementation{Name: "mcp-test-client", Version: "0.0.1"}, clients.Gemini},
		{mcp.Implementation{Name: "inspector-cli"}, clients.Generic},
		{mcp.Implementation{Name: "Visual Studio Code"}, clients.VSCode},
		{mcp.Implementation{Name: "cursor-vscode"}, clients.Cursor},
		{mcp.Implementation{Name: "Cursor"}, clients.Cursor},
		{mcp.Implementation{Name: "openai-mcp"}, clients.ChatGPT},
		{mcp.Implementation{Name: "opencode", Version: "1.18.33"}, clients.OpenCode},
		{mcp.Implementation{Name: "copilot-cli", Version: "1.0.102"}, clients.Copilot},
	} {
		if got := clients.For(tc.info); got != tc.want {
			t.Errorf("For(%+v) = %s, want %s", tc.info, got, tc.want)
		}
	}
}

// Source: Gemini CLI 0.61.0's code (formatTruncatedToolOutput) and the
// wire (cli testGeminiView checks the note against what the model got).
func caseGeminiResultLimits(t *testing.T) {
	v := clients.Present(clients.Gemini, clients.Input{Server: "wx", Tools: tools(t, `{"name":"a","inputSchema":{"type":"object"}}`)})
	if len(v.Notes) != 1 || v.Notes[0].Rule != "gemini/result-limits" || v.Notes[0].Text != clients.GeminiResultNote {
		t.Errorf("notes: %+v", v.Notes)
	}
	if !strings.Contains(clients.GeminiResultNote, "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: PATH") || clients.GeminiResultMax != 40000 {
		t.Errorf("the note: %s", clients.GeminiResultNote)
	}
}
