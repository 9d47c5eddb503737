// Package clients says how each MCP client presents a server's tools to
// its model: which it drops, how it renames them, what it cuts, which
// annotations it acts on, and for ChatGPT, which tools its users still see
// as the list was first seen. Every effect names the rule it comes from
// ([Rules]), and every rule its sources (a client's documentation, its
// source code, or reports of what it did); docs/clients.md is the same
// catalogue in prose. What no source says is not shown as fact.
//
// The doctor's client profiles use the same limits ([AnthropicToolName],
// [VSCodeMaxTools]); the Tools pane and taps show a [View].
package clients

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Effect is one thing a client does to a tool, and the rule that says so.
type Effect struct {
	Rule string
	Text string
}

// Entry is one tool as a client presents it.
type Entry struct {
	Name  string // the server's name for it
	Shown string // the name the model sees
	// Dropped says why the client leaves it out ("" when kept); Refused
	// is set for a tool the model's API refuses, which fails every turn
	// rather than just this tool.
	Dropped string
	Refused bool
	Effects []Effect
	// Hints are the annotations and _meta the client acts on, each
	// saying what it does.
	Hints []Effect
	// Stale is set (ChatGPT) when the client's users still see this tool
	// as it was first seen: added since, changed since, or removed since
	// (Gone: in the first list, not in the live one).
	Stale string
	Gone  bool
	// Tokens is what the client's definition of the tool costs.
	Tokens int
	// Description and Schema are what the client sends its model of the
	// tool where a rule changes them (the server's otherwise); Schema is
	// compact JSON, nil where the client sends no JSON Schema (Codex, in
	// code mode, declares the input in TypeScript in the description).
	Description string
	Schema      json.RawMessage
}

// View is a tool list as one client presents it.
type View struct {
	Client ID
	Server string // the server name the client's prefixes use
	Tools  []Entry
	// Tokens is what the tools the client sends cost together.
	Tokens int
	// Notes are facts about the whole list, with their rules.
	Notes []Effect
	// Unknown says what the view cannot tell (no source).
	Unknown string
	// Stale counts the entries with Stale set.
	Stale int
}

// Input is what a view is made from.
type Input struct {
	// Server is the server's name where a client's prefix needs it: the
	// name in the client's configuration (a tap's --name), else the
	// server's announced name.
	Server string
	// ServerTitle is serverInfo.title, which VS Code prefers.
	ServerTitle string
	Tools       []mcp.Tool
	// FirstSeen is the list as first seen in this session (ChatGPT's
	// cache); nil when the live list is the first one.
	FirstSeen []mcp.Tool
}

// Present is the list as client id presents it.
func Present(id ID, in Input) View {
	v := View{Client: id, Server: in.Server, Unknown: Unknown(id)}
	switch id {
	case Claude:
		v.claude(in)
	case ChatGPT:
		v.chatgpt(in)
	case VSCode:
		v.vscode(in)
	case Cursor:
		v.cursor(in)
	case Gemini:
		v.gemini(in)
	case Codex:
		v.codex(in)
	case OpenCode:
		v.opencode(in)
	case Copilot:
		v.copilot(in)
	default:
		v.Client = Generic
		v.generic(in)
	}
	for _, e := range v.Tools {
		if e.Stale != "" {
			v.Stale++
		}
	}
	return v
}

// definition is what a client sends of a tool, counted: encoded as the
// client encodes it (the server's escapes decoded, no HTML escapes).
func definition(name, description string, schema json.RawMessage, extra ...[2]string) int {
	var b strings.Builder
	b.WriteString(`{"name":` + string(tokens.QuoteString(name)))
	if description != "" {
		b.WriteString(`,"description":` + string(tokens.QuoteString(description)))
	}
	if len(schema) > 0 {
		b.WriteString(`,"input_schema":` + string(tokens.ClientJSON(schema)))
	}
	for _, kv := range extra {
		b.WriteString(`,"` + kv[0] + `":` + kv[1])
	}
	b.WriteString("}")
	return tokens.Count(b.String())
}

// total is what the kept entries cost together.
func (v *View) total() {
	v.Tokens = 0
	for _, e := range v.Tools {
		if e.Dropped == "" && !e.Gone {
			v.Tokens += e.Tokens
		}
	}
}

func (v *View) generic(in Input) {
	seen := map[string]bool{}
	var raws []json.RawMessage
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Shown: t.Name, Tokens: tokens.Tool(raw(t))}
		if seen[t.Name] {
			e.Effects = append(e.Effects, Effect{"generic/as-served", "a second tool of this name: which one a client keeps is not specified"})
		}
		seen[t.Name] = true
		if why := appOnly(t); why != "" {
			e.Dropped = why
			e.Effects = append(e.Effects, Effect{"generic/visibility", why})
		} else {
			raws = append(raws, raw(t))
		}
		v.Tools = append(v.Tools, e)
	}
	// As served, the list is one JSON array (the tools the model is
	// given): what check reports.
	v.Tokens = tokens.List(raws).Total
}

// raw is the tool as sent, or re-encoded when it was built in memory.
func raw(t *mcp.Tool) json.RawMessage {
	if len(t.Raw) > 0 {
		return t.Raw
	}
	b, _ := json.Marshal(t)
	return b
}

// metaString is _meta[key] of a tool as a string.
func meta(t *mcp.Tool, key string) (json.RawMessage, bool) {
	m, ok := jsonview.Member(raw(t), "_meta")
	if !ok {
		return nil, false
	}
	return jsonview.Member(m, key)
}

func (v *View) claude(in Input) {
	prefix := "mcp__" + claudeNormalize(in.Server) + "__"
	alwaysLoad := 0
	var names []string
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Shown: prefix + claudeNormalize(t.Name), Description: t.Description, Schema: tokens.ClientJSON(t.InputSchema)}
		named := "named " + e.Shown
		if claudeNormalize(t.Name) != t.Name {
			named += " (each character outside [a-zA-Z0-9_-] made _)"
		}
		e.Effects = append(e.Effects, Effect{"claude/prefix", named})
		if why := claudeAppOnly(t); why != "" {
			e.Dropped = why
			e.Effects = append(e.Effects, Effect{"claude/visibility", why})
		}
		if len(e.Shown) > AnthropicNameMax {
			e.Refused = true
			e.Dropped = fmt.Sprintf("the Anthropic API refuses the name (it is %d characters, over %d): Claude Code sends it all the same, so a turn after the model loads this tool through tool search fails", len(e.Shown), AnthropicNameMax)
			e.Effects = append(e.Effects, Effect{"claude/name-pattern", e.Dropped})
		}
		if schema, note, ok := claudeCombinators(t.InputSchema); ok {
			e.Schema = schema
			if e.Description != "" {
				e.Description = note + "\n\n" + e.Description
			} else {
				e.Description = note
			}
			e.Effects = append(e.Effects, Effect{"claude/schema-combinators", "input schema's top-level anyOf/oneOf/allOf merged into one object schema; the description starts with \"" + note + "\""})
		}
		deferred := true
		if v, ok := meta(t, "anthropic/alwaysLoad"); ok && string(v) == "true" {
			alwaysLoad++
			deferred = false
			e.Hints = append(e.Hints, Effect{"claude/tool-search", "_meta anthropic/alwaysLoad: its definition loads at session start, not on search"})
		}
		limit := ClaudeLoadedDescriptionMax
		if !deferred {
			limit = ClaudeDescriptionMax
		}
		if n := utf16Len(e.Description); n > limit {
			e.Description = cutUTF16(e.Description, limit) + ClaudeTruncated
			e.Effects = append(e.Effects, Effect{"claude/description-cut", fmt.Sprintf("description cut from %d to %d characters (+ \"%s\")", n, limit, ClaudeTruncated)})
		} else if n > ClaudeDescriptionMax {
			e.Effects = append(e.Effects, Effect{"claude/description-cut", fmt.Sprintf("description of %d characters: whole once loaded through tool search (up to %d), cut at %d if the tool loads at start", n, ClaudeLoadedDescriptionMax, ClaudeDescriptionMax)})
		}
		if v, ok := meta(t, "anthropic/maxResultSizeChars"); ok {
			e.Hints = append(e.Hints, Effect{"claude/result-limits", "_meta anthropic/maxResultSizeChars " + string(v) + ": its text results may be that long (up to 500,000)"})
		}
		e.Tokens = definition(e.Shown, e.Description, e.Schema)
		names = append(names, e.Shown)
		v.Tools = append(v.Tools, e)
	}
	v.total()
	v.Notes = append(v.Notes, Effect{"claude/tool-search", fmt.Sprintf(
		"tools are sent deferred, with tool search (also behind a non-first-party ANTHROPIC_BASE_URL): only the names load at start, about %d tokens; each definition below when Claude searches for it (%d marked alwaysLoad)",
		tokens.Count(strings.Join(names, "\n")), alwaysLoad)})
	v.Notes = append(v.Notes, Effect{"claude/result-limits", ClaudeResultNote})
}

// ClaudeResultNote says what Claude Code does with a long result.
var ClaudeResultNote = fmt.Sprintf("a result over %d tokens is warned about; over %d (MAX_MCP_OUTPUT_TOKENS) it is saved to a file and the model gets, in its place, \"Error: result (N characters across L lines) exceeds maximum allowed tokens. Output has been saved to PATH.\" and instructions to read the file", ClaudeResultWarn, ClaudeResultMax)

func (v *View) gemini(in Input) {
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Description: t.Description}
		shown, long := geminiName(in.Server, t.Name)
		e.Shown = shown
		named := "named " + e.Shown
		if joined := in.Server + "_" + t.Name; long == 0 && e.Shown != "mcp_"+joined && e.Shown != joined {
			named += " (each character outside [a-zA-Z0-9_.:-] made _)"
		}
		e.Effects = append(e.Effects, Effect{"gemini/prefix", named})
		if appOnly(t) != "" {
			e.Effects = append(e.Effects, Effect{"gemini/visibility", "for views alone (_meta.ui.visibility without \"model\"), yet Gemini CLI gives it to the model"})
		}
		if long > 0 {
			e.Effects = append(e.Effects, Effect{"gemini/name-length", fmt.Sprintf("a name of %d characters shortened to its first %d, ..., and last %d", long, GeminiNameKeep, GeminiNameKeep)})
		}
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if s, changed := geminiNullable(schema); changed {
			schema = s
			e.Effects = append(e.Effects, Effect{"gemini/nullable", `type: [X, "null"] sent as type: X, nullable: true`})
		}
		if s, added := geminiAddWait(schema); added {
			schema = s
			e.Effects = append(e.Effects, Effect{"gemini/wait-for-previous", "a boolean property wait_for_previous added"})
		}
		e.Schema = tokens.ClientJSON(schema)
		e.Tokens = definition(e.Shown, e.Description, e.Schema)
		v.Tools = append(v.Tools, e)
	}
	v.total()
	v.Notes = append(v.Notes, Effect{"gemini/result-limits", GeminiResultNote})
}

// GeminiResultMax is Gemini CLI 0.61.0's default limit on what the model
// gets of a tool's output, in characters (tools.truncateToolOutputThreshold).
const GeminiResultMax = 40000

// GeminiResultNote says what Gemini CLI does with a long result.
const GeminiResultNote = "a text result is wrapped in <untrusted_context> tags; over 40,000 characters (tools.truncateToolOutputThreshold) it is saved to a file and the model gets \"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: PATH\", the first fifth of the limit, \"... [N characters omitted] ...\" and the rest from the end"

func (v *View) codex(in Input) {
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Shown: codexName(in.Server, t.Name)}
		named := "named " + e.Shown
		if e.Shown != "mcp__"+in.Server+"__"+t.Name {
			named += " (each character outside [a-zA-Z0-9_] made _)"
		}
		e.Effects = append(e.Effects, Effect{"codex/prefix", named})
		e.Description = codexDescription(e.Shown, t.Description, t.InputSchema, t.OutputSchema)
		e.Effects = append(e.Effects, Effect{"codex/code-mode", "input schema sent as a TypeScript declaration after the description, not as JSON Schema"})
		if why := appOnly(t); why != "" {
			e.Dropped = why
			e.Effects = append(e.Effects, Effect{"codex/visibility", why})
			v.Tools = append(v.Tools, e)
			continue
		}
		e.Tokens = definition(e.Shown, e.Description, nil)
		v.Tools = append(v.Tools, e)
	}
	v.total()
	v.Notes = append(v.Notes, Effect{"codex/deferred", "tools are sent deferred: the first request names only the namespace mcp__" + in.Server + "; the model finds a tool's name and description (with its TypeScript declaration) in ALL_TOOLS from its exec tool"})
	v.Notes = append(v.Notes, Effect{"codex/result-limits", CodexResultNote})
}

// CodexResultNote says what Codex does with a long result its model's
// script outputs.
const CodexResultNote = "the exec tool's output is cut to max_output_tokens (10,000 by default, counted as 4 bytes a token): the model gets \"Warning: truncated output (original token count: N)\", the line count, then the first and last halves around \"\u2026N tokens truncated\u2026\"; a result the script does not output does not reach the model"

// sameDefinition compares what a model is given of two tools.
func sameDefinition(a, b *mcp.Tool) bool {
	da, _ := tokens.Definition(raw(a))
	db, _ := tokens.Definition(raw(b))
	return string(da) == string(db)
}

func (v *View) chatgpt(in Input) {
	first := map[string]*mcp.Tool{}
	for i := range in.FirstSeen {
		first[in.FirstSeen[i].Name] = &in.FirstSeen[i]
	}
	live := map[string]bool{}
	for i := range in.Tools {
		t := &in.Tools[i]
		live[t.Name] = true
		e := Entry{Name: t.Name, Shown: t.Name, Tokens: tokens.Tool(raw(t))}
		if in.FirstSeen != nil {
			switch was, ok := first[t.Name]; {
			case !ok:
				e.Stale = "added since the list was first seen: ChatGPT users do not see it until they refresh the app"
			case !sameDefinition(was, t):
				e.Stale = "changed since the list was first seen: ChatGPT users still get its first definition"
				e.Tokens = tokens.Tool(raw(was))
			}
			if e.Stale != "" {
				e.Effects = append(e.Effects, Effect{"chatgpt/cached-list", e.Stale})
			}
		}
		e.Hints = chatgptHints(t)
		v.Tools = append(v.Tools, e)
	}
	for i := range in.FirstSeen {
		t := &in.FirstSeen[i]
		if live[t.Name] {
			continue
		}
		e := Entry{Name: t.Name, Shown: t.Name, Gone: true, Tokens: tokens.Tool(raw(t)),
			Stale: "removed since the list was first seen: ChatGPT users still see it, and calling it fails"}
		e.Effects = append(e.Effects, Effect{"chatgpt/cached-list", e.Stale})
		v.Tools = append(v.Tools, e)
	}
	v.total()
	for _, e := range v.Tools {
		// What ChatGPT users get is the first list: removed tools count,
		// tools added since do not.
		switch {
		case e.Gone:
			v.Tokens += e.Tokens
		case strings.HasPrefix(e.Stale, "added"):
			v.Tokens -= e.Tokens
		}
	}
	note := "the list as first seen in this session stands for the one ChatGPT cached when the app was added"
	if in.FirstSeen == nil {
		note += "; it has not changed since"
	}
	v.Notes = append(v.Notes, Effect{"chatgpt/cached-list", note})
}

func chatgptHints(t *mcp.Tool) []Effect {
	var out []Effect
	ro := t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	if ro {
		out = append(out, Effect{"chatgpt/read-only-hint", "readOnlyHint: called without asking the user to confirm"})
	} else {
		out = append(out, Effect{"chatgpt/read-only-hint", "no readOnlyHint: a write action, which ChatGPT asks the user to confirm"})
	}
	if a := t.Annotations; a != nil && (a.DestructiveHint != nil || a.OpenWorldHint != nil) {
		var hs []string
		if a.DestructiveHint != nil {
			hs = append(hs, fmt.Sprintf("destructiveHint %v", *a.DestructiveHint))
		}
		if a.OpenWorldHint != nil {
			hs = append(hs, fmt.Sprintf("openWorldHint %v", *a.OpenWorldHint))
		}
		out = append(out, Effect{"chatgpt/hints", strings.Join(hs, ", ")})
	} else if !ro {
		out = append(out, Effect{"chatgpt/hints", "no destructiveHint or openWorldHint, which app review asks for"})
	}
	if v, ok := meta(t, "openai/outputTemplate"); ok {
		s, _ := jsonview.String(v)
		out = append(out, Effect{"chatgpt/meta", "openai/outputTemplate " + s + ": its result renders in that component"})
	}
	for _, k := range []string{"openai/toolInvocation/invoking", "openai/toolInvocation/invoked"} {
		if v, ok := meta(t, k); ok {
			s, _ := jsonview.String(v)
			if n := utf8.RuneCountInString(s); n > ChatGPTStatusMax {
				out = append(out, Effect{"chatgpt/meta", fmt.Sprintf("%s is %d characters, over %d", k, n, ChatGPTStatusMax)})
			}
		}
	}
	return out
}

var (
	vscodeLabelRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_.-]+`) })
	vscodeCharRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })
)

// VSCodePrefix is the prefix VS Code gives a server's tools.
func VSCodePrefix(label string) string {
	base := vscodeLabelRe().ReplaceAllString(strings.ToLower(label), "_")
	if room := VSCodePrefixMax - len("mcp_") - 1; len(base) > room {
		base = base[:room]
	}
	return "mcp_" + base + "_"
}

func (v *View) vscode(in Input) {
	label := in.ServerTitle
	if label == "" {
		label = in.Server
	}
	prefix := VSCodePrefix(label)
	v.Server = label
	byName := map[string]int{}
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name}
		name := t.Name
		if vscodeCharRe().MatchString(name) {
			name = vscodeCharRe().ReplaceAllString(name, "_")
			e.Effects = append(e.Effects, Effect{"vscode/name-characters", "characters outside [a-zA-Z0-9_-] made _: " + name})
		}
		shown := strings.ReplaceAll(prefix+name, ".", "_")
		if len(shown) > VSCodeNameMax {
			shown = shown[:VSCodeNameMax]
			e.Effects = append(e.Effects, Effect{"vscode/name-length", fmt.Sprintf("cut to %d characters", VSCodeNameMax)})
		}
		e.Shown = shown
		e.Effects = append([]Effect{{"vscode/prefix", "named " + shown}}, e.Effects...)
		if why := appOnly(t); why != "" {
			e.Dropped = why
			e.Effects = append(e.Effects, Effect{"vscode/visibility", why})
		}
		desc := t.Description
		if desc == "" {
			desc = "<empty>"
			e.Effects = append(e.Effects, Effect{"vscode/empty-description", "no description: VS Code gives it <empty>"})
		}
		if j, dup := byName[shown]; dup {
			e.Effects = append(e.Effects, Effect{"vscode/name-length", "the same name as " + in.Tools[j].Name + ": the two collide"})
		} else {
			byName[shown] = i
		}
		e.Tokens = definition(shown, desc, t.InputSchema)
		v.Tools = append(v.Tools, e)
	}
	// The limit counts the tools the model is given: those for views
	// alone are left out first.
	n := 0
	for i := range v.Tools {
		if v.Tools[i].Dropped != "" {
			continue
		}
		if n++; n > VSCodeMaxTools {
			v.Tools[i].Dropped = fmt.Sprintf("beyond the %d tools VS Code sends in one request", VSCodeMaxTools)
		}
	}
	if n > VSCodeMaxTools {
		v.Notes = append(v.Notes, Effect{"vscode/tool-count", fmt.Sprintf("%d tools: VS Code sends at most %d in a request, every server's counted", n, VSCodeMaxTools)})
	} else {
		v.Notes = append(v.Notes, Effect{"vscode/tool-count", fmt.Sprintf("%d of the %d tools VS Code sends in a request, with other servers' tools counted too", n, VSCodeMaxTools)})
	}
	v.total()
}

func (v *View) cursor(in Input) {
	kept := 0
	for i := range in.Tools {
		t := &in.Tools[i]
		e := Entry{Name: t.Name, Shown: t.Name, Tokens: definition(t.Name, t.Description, t.InputSchema)}
		if n := len(in.Server) + len(t.Name); n >= CursorCombinedMax {
			e.Dropped = fmt.Sprintf("server and tool name are %d characters together: Cursor filters it out (under %d pass)", n, CursorCombinedMax)
			e.Effects = append(e.Effects, Effect{"cursor/combined-length", e.Dropped})
		} else if kept++; kept > CursorMaxTools {
			e.Dropped = fmt.Sprintf("after the first %d tools, which is all Cursor's docs said it sends", CursorMaxTools)
			e.Effects = append(e.Effects, Effect{"cursor/first-40", e.Dropped})
		}
		v.Tools = append(v.Tools, e)
	}
	v.total()
	if kept > CursorMaxTools {
		v.Notes = append(v.Notes, Effect{"cursor/first-40", fmt.Sprintf("%d tools pass its name rule; Cursor's docs said it sends the first %d", kept, CursorMaxTools)})
	}
}
