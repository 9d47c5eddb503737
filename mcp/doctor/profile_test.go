package doctor_test

import (
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// findings are the messages of one rule in a session.
func findings(s *session, rule string) string {
	var out []string
	for _, d := range s.diags {
		if d.Rule == rule {
			out = append(out, d.Message)
		}
	}
	return strings.Join(out, "\n")
}

// Each client's profile reports the tools that client renames, cuts or
// rewrites, naming the client rule and its source; a tool it sends
// unchanged but for its prefix gets no finding of its own.
func TestProfilesSayWhatTheClientSends(t *testing.T) {
	seventy := strings.Repeat("n", 70)
	list := toolList(
		tool("get.weather", ""),
		tool("plain", `"description":"ok"`),
		tool(seventy, ""),
		`{"name":"long","description":"`+strings.Repeat("d", 5000)+`","inputSchema":{"type":"object"},"_meta":{"anthropic/alwaysLoad":true}}`,
		`{"name":"either","inputSchema":{"anyOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"q":{"type":"string"}},"required":["q"]}]}}`,
		`{"name":"maybe","inputSchema":{"type":"object","properties":{"v":{"type":["string","null"]}}}}`,
	)
	for _, tc := range []struct {
		profile  doctor.Profile
		rule     string
		want     []string
		wantNot  []string
		silentOn string
	}{
		{doctor.ProfileClaude, "profile/claude-presents", []string{
			`tool "long" to its model as "mcp__script__long": description cut from 5000 to 4096 characters`,
			"rule claude/description-cut; source: Claude Code 2.1.328 code",
			`tool "either" to its model as "mcp__script__either": input schema's top-level anyOf/oneOf/allOf merged`,
			"Input constraint: Provide parameters for at least one of: (id) or (q).",
			"rule claude/schema-combinators",
			"sent deferred, with tool search",
			`"get.weather" is sent as "mcp__script__get_weather"`,
		}, []string{`sends tool "get.weather"`}, "plain"},
		{doctor.ProfileGemini, "profile/gemini-presents", []string{
			`names each of the 6 tools for its model with its prefix: "get.weather" is sent as "mcp_script_get.weather" (rule gemini/prefix; source: Gemini CLI 0.61.0 code`,
			`tool "` + seventy + `" to its model as "mcp_script_nnnnnnnnnnnnnnnnnnn...nnnnnnnnnnnnnnnnnnnnnnnnnnnnnn": a name of 81 characters shortened`,
			`tool "maybe" to its model as "mcp_script_maybe": type: [X, "null"] sent as type: X, nullable: true (rule gemini/nullable`,
			"adds a boolean property wait_for_previous to the input schema of 5 of the 6 tools",
		}, nil, "plain"},
		{doctor.ProfileCodex, "profile/codex-presents", []string{
			`tool "get.weather" to its model as "mcp__script__get_weather": named mcp__script__get_weather (each character outside [a-zA-Z0-9_] made _) (rule codex/prefix; source: Codex 0.169.0 on the wire`,
			"Codex gives its model no JSON Schema for 6 of the 6 tools: each one's input is a TypeScript declaration appended to its description (rule codex/code-mode; source: Codex 0.169.0 on the wire",
			"Codex: tools are sent deferred: the first request names only the namespace mcp__script; the model finds a tool's name and description (with its TypeScript declaration) in ALL_TOOLS from its exec tool (rule codex/deferred; source: Codex 0.169.0 on the wire",
		}, nil, "plain"},
		{doctor.ProfileOpenCode, "profile/opencode-presents", []string{
			`names each of the 6 tools for its model with its prefix: "get.weather" is sent as "script_get_weather" (rule opencode/prefix; source: opencode 1.18.33 on the wire`,
			`tool "plain" to its model as "script_plain": tool "either" has no inputSchema of type "object": opencode's MCP SDK refuses the whole list, so none of this server's tools reach the model (rule opencode/invalid-list; source: opencode 1.18.33 on the wire, by hand`,
			"opencode sends the input schema of 6 of the 6 tools with type object, properties and additionalProperties: false set: the model is told no other argument is allowed (rule opencode/schema; source: opencode 1.18.33 on the wire",
		}, nil, ""},
		{doctor.ProfileCopilot, "profile/copilot-presents", []string{
			`tool "get.weather" to its model as "script-get-weather": named script-get-weather (characters outside ASCII as punycode, then each outside [a-zA-Z0-9_-] made -) (rule copilot/prefix; source: Copilot CLI 1.0.102 on the wire`,
			`": a name of 77 characters cut to 64 (rule copilot/name-length; source: Copilot CLI 1.0.102 on the wire`,
			`tool "either" to its model as "script-either": the top-level anyOf removed`,
		}, nil, "plain"},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			s := run(t, scripted(list), mcp.Options{}, doctor.Options{Profile: tc.profile}, listAll("tools/list"))
			got := findings(s, tc.rule)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("has %q:\n%s", w, got)
				}
			}
			if strings.Contains(got, `tool "`+tc.silentOn+`"`) {
				t.Errorf("a tool sent as served but for the prefix has a finding:\n%s", got)
			}
			// Another profile's rule never fires.
			for _, other := range []string{"profile/claude-presents", "profile/gemini-presents", "profile/codex-presents", "profile/vscode-presents", "profile/opencode-presents", "profile/copilot-presents"} {
				if other != tc.rule && s.fired(other) {
					t.Errorf("%s fired under %s", other, tc.profile)
				}
			}
		})
	}
	// The generic profile reports none of it.
	s := run(t, scripted(list), mcp.Options{}, doctor.Options{}, listAll("tools/list"))
	for _, r := range s.rules() {
		if strings.Contains(r, "-presents") {
			t.Errorf("generic: %s", r)
		}
	}
}

// Under the claude profile a dot is Claude Code's rename, not a refusal.
func TestClaudeProfileDotIsRenamed(t *testing.T) {
	s := run(t, scripted(toolList(tool("get.weather", ""))), mcp.Options{}, doctor.Options{Profile: doctor.ProfileClaude}, listAll("tools/list"))
	d := s.find("profile/claude-tool-name")
	if d == nil || !strings.Contains(d.Why, "get_weather") || strings.Contains(d.Why, "Claude Desktop and Claude Code fail") {
		t.Errorf("claude-tool-name: %+v", d)
	}
}
