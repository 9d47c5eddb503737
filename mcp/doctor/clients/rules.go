package clients

import (
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
)

// ID names a client; the values are the doctor's profile names
// (--client-profile), plus cursor.
type ID string

// The clients a view can be asked for.
const (
	Generic ID = "generic"
	Claude  ID = "claude"
	ChatGPT ID = "chatgpt"
	VSCode  ID = "vscode"
	Cursor  ID = "cursor"
	Gemini  ID = "gemini"
	Codex   ID = "codex"
	// OpenCode is opencode (opencode-ai), Copilot GitHub Copilot CLI.
	OpenCode ID = "opencode"
	Copilot  ID = "copilot"
)

// All lists the clients in the order a picker offers them.
func All() []ID {
	return []ID{Generic, Claude, ChatGPT, VSCode, Cursor, Gemini, Codex, OpenCode, Copilot}
}

// Name is how a view names the client.
func (id ID) Name() string {
	switch id {
	case Claude:
		return "Claude Code"
	case ChatGPT:
		return "ChatGPT"
	case VSCode:
		return "VS Code"
	case Cursor:
		return "Cursor"
	case Gemini:
		return "Gemini CLI"
	case Codex:
		return "Codex"
	case OpenCode:
		return "opencode"
	case Copilot:
		return "Copilot CLI"
	}
	return "generic client"
}

// NamesKnown reports whether a source says how the client names tools
// for its model; for the others a view shows the server's name and says
// the rest is not known.
func (id ID) NamesKnown() bool {
	return id == Claude || id == VSCode || id == Gemini || id == Codex || id == OpenCode || id == Copilot
}

// Parse reads a client's name ("" is generic); ok is false for a name
// it does not know.
func Parse(s string) (ID, bool) {
	if s == "" {
		return Generic, true
	}
	for _, id := range All() {
		if string(id) == s {
			return id, true
		}
	}
	return "", false
}

// Source is where a rule comes from: a client's documentation, its
// source code, its shipped code as installed from npm, what it sent its
// model on the wire, or reports from its users.
type Source struct {
	// Kind is "docs", "source" (a repository), "code" (the client's
	// shipped package: URL names the package, version, file and symbol),
	// "wire" (observed in the request the client sent a fake model API on
	// loopback), or "report" (an issue: users' observation).
	Kind  string
	Label string
	URL   string
}

// Rule is one thing a client is known to do with a server's tools, with
// the sources that say so. A behaviour with no source is not a rule: a
// view says it is not known instead.
type Rule struct {
	ID      string
	Client  ID
	Says    string
	Sources []Source
}

// The limits the rules apply; the doctor's profile rules use the same.
const (
	// AnthropicNameMax is the longest tool name the Anthropic API takes.
	AnthropicNameMax = 64
	// ClaudeDescriptionMax is where Claude Code cuts a tool's description
	// (JavaScript characters: UTF-16 code units), and
	// ClaudeLoadedDescriptionMax where it cuts one loaded through tool
	// search; CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH replaces both.
	ClaudeDescriptionMax       = 4096
	ClaudeLoadedDescriptionMax = 16384
	// ClaudeTruncated is what Claude Code appends to a cut description.
	ClaudeTruncated = "\u2026 [truncated]"
	// ClaudeResultWarn and ClaudeResultMax are Claude Code's result limits
	// in tokens (the second is MAX_MCP_OUTPUT_TOKENS's default); a result
	// over the second is saved to a file and the model gets its path.
	ClaudeResultWarn = 10000
	ClaudeResultMax  = 25000
	// GeminiNameMax is the longest name Gemini CLI keeps whole; a longer
	// one becomes its first and last GeminiNameKeep characters around
	// "...".
	GeminiNameMax  = 63
	GeminiNameKeep = 30
	// VSCodeMaxTools is how many tools VS Code sends in one chat request.
	VSCodeMaxTools = 128
	// VSCodePrefixMax and VSCodeNameMax are VS Code's McpToolName limits.
	VSCodePrefixMax = 18
	VSCodeNameMax   = 64
	// CursorCombinedMax is the server and tool name length Cursor refuses.
	CursorCombinedMax = 60
	// CursorMaxTools is how many tools Cursor's docs said it sends.
	CursorMaxTools = 40
	// ChatGPTStatusMax is the limit on openai/toolInvocation texts.
	ChatGPTStatusMax = 64
)

// AnthropicToolName says whether name is what the Anthropic API requires
// of a tool name: ^[a-zA-Z0-9_-]{1,64}$.
func AnthropicToolName(name string) bool { return ASCIIName(name, 64, "_-") }

// ASCIIName says whether s matches ^[a-zA-Z0-9<punct>]{1,max}$, the shape
// of every name rule here. A loop, not a regexp: the bounded repetition
// compiles into max copies of the class, which every run that checks a
// tool name would pay for.
func ASCIIName(s string, max int, punct string) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(punct, c) >= 0 {
			continue
		}
		return false
	}
	return true
}

var (
	docsClaudeMCP   = Source{"docs", "Claude Code docs: Connect Claude Code to tools via MCP", "https://code.claude.com/docs/en/mcp"}
	docsAnthropic   = Source{"docs", "Anthropic API: tool definitions (name pattern)", "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use"}
	docsAppsRef     = Source{"docs", "OpenAI Apps SDK reference: tool descriptor and annotations", "https://developers.openai.com/apps-sdk/reference"}
	docsAppsTools   = Source{"docs", "OpenAI Apps SDK: define tools (confirmation for write actions)", "https://developers.openai.com/apps-sdk/plan/tools"}
	srcVSCodeServer = Source{"source", "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpServer.ts (_normalizeTool, McpTool)", "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpServer.ts"}
	srcVSCodePrefix = Source{"source", "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpService.ts (McpPrefixGenerator), mcpTypes.ts (McpToolName)", "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpService.ts"}
)

// The clients' shipped code, read in the packages installed from npm at
// the pinned versions, and what they sent a fake model API on loopback.
var (
	codeClaudeName   = Source{"code", "Claude Code 2.1.328 code: server and tool names pass normalizeMcpServerName (replace /[^a-zA-Z0-9_-]/g with _)", "@anthropic-ai/claude-code@2.1.328 bin/claude.exe: normalizeMcpServerName"}
	wireClaudeName   = Source{"wire", "Claude Code 2.1.328 on the wire: get.weather of server wx sent as mcp__wx__get_weather", "observed on the wire: Claude Code 2.1.328, tool get.weather"}
	codeClaudeDesc   = Source{"code", "Claude Code 2.1.328 code: descriptions cut at CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH, else 4096, or 16384 for a tool loaded through tool search, with \u2026 [truncated]", "@anthropic-ai/claude-code@2.1.328 bin/claude.exe: Gae (4096 zoo, 16384 Voo), ti"}
	wireClaudeDesc   = Source{"wire", "Claude Code 2.1.328 on the wire: a 3,000-character description sent whole", "observed on the wire: Claude Code 2.1.328, a 3,000-character description"}
	wireClaudeDefer  = Source{"wire", "Claude Code 2.1.328 on the wire: MCP tools sent deferred, with tool search, behind a loopback ANTHROPIC_BASE_URL", "observed on the wire: Claude Code 2.1.328 behind a non-first-party ANTHROPIC_BASE_URL"}
	codeClaudeResult = Source{"code", "Claude Code 2.1.328 code: an MCP result over its limit is saved to a file; the model gets \"Error: result (N characters) exceeds maximum allowed tokens. Output has been saved to PATH\"", "@anthropic-ai/claude-code@2.1.328 bin/claude.exe: tengu_mcp_large_result_handled (exceeds maximum allowed tokens)"}
	wireClaudeResult = Source{"wire", "Claude Code 2.1.328 on the wire: a 300 KB result reached the model as \"Error: result (307,200 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to PATH.\" and instructions to read the file, no preview", "observed on the wire: Claude Code 2.1.328 (go test ./cli -run TestRealClients, claude-code view), a 300 KB result"}
	codeClaudeAnyOf  = Source{"code", "Claude Code 2.1.328 code: a top-level anyOf/oneOf/allOf merged into {type: object, properties, required} with an \"Input constraint:\" note before the description", "@anthropic-ai/claude-code@2.1.328 bin/claude.exe: m5a, Sn, Hes, Vjs"}
	wireClaudeAnyOf  = Source{"wire", "Claude Code 2.1.328 on the wire: a top-level anyOf sent as {properties, required: []} with a note in the description", "observed on the wire: Claude Code 2.1.328, a top-level anyOf"}
	wireClaude       = Source{"wire", "Claude Code 2.1.328 on the wire: names, descriptions and input schemas of loaded tools as the claude view predicts them (get.weather, a 70-character name sent as is, a top-level anyOf, a 3,000-character description)", "observed on the wire: Claude Code 2.1.328 (go test ./cli -run TestRealClients, claude-code view)"}
	codeGeminiName   = Source{"code", "Gemini CLI 0.61.0 code: generateValidName (packages/core/src/tools/mcp-tool.ts)", "@google/gemini-cli@0.61.0 bundle/chunk-5FZXKDXH.js: generateValidName"}
	codeGeminiNull   = Source{"code", "Gemini CLI 0.61.0 code: discoverTools turns type [X, \"null\"] into type X, nullable true (packages/core/src/tools/mcp-client.ts)", "@google/gemini-cli@0.61.0 bundle/chunk-5FZXKDXH.js: discoverTools"}
	codeGeminiWait   = Source{"code", "Gemini CLI 0.61.0 code: DeclarativeTool.getSchema adds wait_for_previous (packages/core/src/tools/tools.ts)", "@google/gemini-cli@0.61.0 bundle/chunk-5FZXKDXH.js: addWaitForPreviousParameter"}
	codeGeminiResult = Source{"code", "Gemini CLI 0.61.0 code: formatTruncatedToolOutput, DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD (40,000) and wrapUntrusted", "@google/gemini-cli@0.61.0 bundle/chunk-5FZXKDXH.js: formatTruncatedToolOutput"}
	wireGeminiResult = Source{"wire", "Gemini CLI 0.61.0 on the wire: a 300 KB result as the model got it", "observed on the wire: Gemini CLI 0.61.0 (go test ./cli -run TestRealClients, gemini-cli view), a 300 KB result"}
	wireGemini       = Source{"wire", "Gemini CLI 0.61.0 on the wire: names, descriptions and schemas as the gemini view predicts them (get.weather, a 70-character name, type [string, null], a top-level anyOf, a 3,000-character description)", "observed on the wire: Gemini CLI 0.61.0 (go test ./cli -run TestRealClients, gemini-cli view)"}
	wireCodexDefer   = Source{"wire", "Codex 0.169.0 on the wire: the first request defines no MCP tool and names only the namespace mcp__wx under \"Deferred tool namespaces\"", "observed on the wire: Codex 0.169.0 (go test ./cli -run TestRealClients, codex view)"}
	codeCodexName    = Source{"code", "Codex 0.169.0 code: its instructions to the model name MCP tools mcp__server__tool", "@openai/codex@0.169.0 codex binary: \"MCP tools keep standard MCP identifiers such as mcp__server__tool\""}
	wireCodex        = Source{"wire", "Codex 0.169.0 on the wire: the names and descriptions ALL_TOOLS gave its model, as predicted", "observed on the wire: Codex 0.169.0 (go test ./cli -run TestRealClients, codex view)"}
	wireOpenCode     = Source{"wire", "opencode 1.18.33 on the wire: every name, description and schema, as predicted", "observed on the wire: opencode 1.18.33 (go test ./cli -run TestRealClients, opencode view)"}
	wireOpenCodeList = Source{"wire", "opencode 1.18.33 on the wire, by hand: with one tool whose inputSchema had no type, the request held none of the server's tools", "observed on the wire by hand: opencode 1.18.33, a tool whose inputSchema has no type"}
	wireCopilot      = Source{"wire", "Copilot CLI 1.0.102 on the wire: every name, description and schema, as predicted", "observed on the wire: Copilot CLI 1.0.102 (go test ./cli -run TestRealClients, copilot view)"}
	wireCopilotMore  = Source{"wire", "Copilot CLI 1.0.102 on the wire, by hand: héllo wörld as wx-xn--hllo-wrld-b4a2m, UPPER.Case as wx-UPPER-Case, a top-level oneOf and allOf, keys sorted at every depth (COPILOT_MODEL m and gpt-4.1 alike)", "observed on the wire by hand: Copilot CLI 1.0.102 with COPILOT_PROVIDER_BASE_URL on loopback"}
	wireCodexBig     = Source{"wire", "Codex 0.169.0 on the wire: a 300 KB result, output by the model's exec script, as the model got it", "observed on the wire: Codex 0.169.0 (go test ./cli -run TestRealClients, codex view), a 300 KB result"}
	wireOpenCodeBig  = Source{"wire", "opencode 1.18.33 on the wire: a 300 KB result as the model got it", "observed on the wire: opencode 1.18.33 (go test ./cli -run TestRealClients, opencode view), a 300 KB result"}
	wireCopilotBig   = Source{"wire", "Copilot CLI 1.0.102 on the wire: a 300 KB result as the model got it", "observed on the wire: Copilot CLI 1.0.102 (go test ./cli -run TestRealClients, copilot view), a 300 KB result"}
	srcCodexTS       = Source{"source", "openai/codex codex-rs/code-mode-protocol/src/description.rs (render_code_mode_sample, normalize_code_mode_identifier)", "https://github.com/openai/codex/blob/main/codex-rs/code-mode-protocol/src/description.rs"}
)

// MCP Apps' visibility, in the specification and the clients that read it.
var (
	docsAppsVisibility = Source{"docs", "MCP Apps specification 2026-01-26 (io.modelcontextprotocol/ui): tool visibility; a host does not give the model a tool whose visibility leaves out \"model\"", "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx"}
	codeClaudeVisib    = Source{"code", "Claude Code 2.1.328 code: a tool whose _meta.ui.visibility omits \"model\", or whose _meta.ui or visibility cannot be read, is kept from the model (hosts still see it)", "@anthropic-ai/claude-code@2.1.328 bin/claude.exe: is kept from the model (its _meta.ui.visibility omits"}
	wireGeminiVisib    = Source{"wire", "Gemini CLI 0.61.0 on the wire: a tool with _meta.ui.visibility [\"app\"] sent to the model among the others", "observed on the wire: Gemini CLI 0.61.0 (go test ./cli -run TestRealClients, gemini-cli view), a tool for views alone"}
	wireCodexVisib     = Source{"wire", "Codex 0.169.0 on the wire: a tool with _meta.ui.visibility [\"app\"] missing from the ALL_TOOLS its model read", "observed on the wire: Codex 0.169.0 (go test ./cli -run TestRealClients, codex view), a tool for views alone"}
	wireClaudeVisib    = Source{"wire", "Claude Code 2.1.328 on the wire: a tool with _meta.ui.visibility [\"app\"] named in neither request to the model", "observed on the wire: Claude Code 2.1.328 (go test ./cli -run TestRealClients, claude-code view), a tool for views alone"}
	srcVSCodeVisib     = Source{"source", "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpServer.ts (_normalizeTool: McpToolVisibility from _meta.ui.visibility) and mcpLanguageModelToolContribution.ts (only McpToolVisibility.Model tools are registered)", "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpLanguageModelToolContribution.ts"}
)

func report(label, url string) Source { return Source{"report", label, url} }

// catalog is every client rule. docs/clients.md explains each with its
// sources; a test keeps the two in step.
var catalog = []Rule{
	{ID: "generic/as-served", Client: Generic,
		Says:    "The list as the server sent it: nothing renamed, cut or dropped. A name that appears twice is marked: the specification asks for unique names and says nothing of which one a client keeps.",
		Sources: []Source{{"docs", "MCP specification 2025-11-25: Tools, tool names", "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"}}},
	{ID: "generic/visibility", Client: Generic,
		Says:    "A host of MCP Apps leaves out of the model's list a tool whose _meta.ui.visibility is an array without \"model\" (a tool for views alone): it costs the model nothing. A visibility that is not an array reads as the default, [\"model\", \"app\"].",
		Sources: []Source{docsAppsVisibility}},

	{ID: "claude/prefix", Client: Claude,
		Says: "Claude Code 2.1.328 names each MCP tool mcp__<server>__<tool> for the model, <server> being the name the server has in its configuration; each character of either outside [a-zA-Z0-9_-] becomes _ (get.weather of server wx is mcp__wx__get_weather).",
		Sources: []Source{codeClaudeName, wireClaudeName, wireClaude, docsClaudeMCP,
			report("anthropics/claude-code#19770 (observed names)", "https://github.com/anthropics/claude-code/issues/19770")}},
	{ID: "claude/name-pattern", Client: Claude,
		Says: "The Anthropic API refuses a tool name over 64 characters, prefix included (^[a-zA-Z0-9_-]{1,64}$). Claude Code 2.1.328 sends such a name all the same, deferred: in the system text at first, then in tools once the model loads it through tool search, and that request fails (the refusal itself is the API's documented rule, not observed here).",
		Sources: []Source{docsAnthropic, wireClaude,
			report("anthropics/claude-code#2412 (at most 64 characters)", "https://github.com/anthropics/claude-code/issues/2412"),
			report("thedotmack/claude-mem#360 (a 65-character prefixed name)", "https://github.com/thedotmack/claude-mem/pull/360")}},
	{ID: "claude/description-cut", Client: Claude,
		Says:    "Claude Code 2.1.328 cuts a tool's description at 4,096 characters, at 16,384 once the tool is loaded through tool search (CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH replaces both), and appends \u2026 [truncated].",
		Sources: []Source{codeClaudeDesc, wireClaudeDesc, wireClaude}},
	{ID: "claude/tool-search", Client: Claude,
		Says:    "Claude Code 2.1.328 sends MCP tools deferred, with tool search, also behind a non-first-party ANTHROPIC_BASE_URL: only the names load at session start; a definition enters the context when Claude searches for it. A tool whose _meta has anthropic/alwaysLoad: true loads at start.",
		Sources: []Source{wireClaudeDefer, wireClaude, docsClaudeMCP}},
	{ID: "claude/result-limits", Client: Claude,
		Says:    "Claude Code warns when a tool's output exceeds 10,000 tokens; over its limit (25,000 tokens by default, MAX_MCP_OUTPUT_TOKENS) Claude Code 2.1.328 saves an MCP tool's output to a file and gives the model, in its place, \"Error: result (N characters across L lines) exceeds maximum allowed tokens. Output has been saved to PATH.\" with instructions to read the file in chunks: no preview of the result. _meta anthropic/maxResultSizeChars on the tool raises its threshold for text, up to 500,000 characters.",
		Sources: []Source{codeClaudeResult, wireClaudeResult, docsClaudeMCP}},
	{ID: "claude/schema-combinators", Client: Claude,
		Says:    "Claude Code 2.1.328 rewrites an input schema with a top-level anyOf, oneOf or allOf (which the Anthropic API does not accept) into {type: object, properties (every branch's), required (those every branch requires), additionalProperties: true}, and puts an \"Input constraint: ...\" note before the description.",
		Sources: []Source{codeClaudeAnyOf, wireClaudeAnyOf, wireClaude}},
	{ID: "claude/visibility", Client: Claude,
		Says:    "Claude Code 2.1.328 keeps from the model a tool whose _meta.ui.visibility leaves out \"model\", and also one whose _meta.ui is not an object or whose visibility is not an array (it reads those as visible to neither model nor app).",
		Sources: []Source{codeClaudeVisib, wireClaudeVisib, docsAppsVisibility}},
	{ID: "claude/list-changed", Client: Claude,
		Says: "Claude Code's documentation says it refreshes tools on notifications/tools/list_changed; users have reported sessions that did not.",
		Sources: []Source{docsClaudeMCP,
			report("anthropics/claude-code#13646", "https://github.com/anthropics/claude-code/issues/13646")}},

	{ID: "chatgpt/cached-list", Client: ChatGPT,
		Says: "ChatGPT keeps the tool list it fetched when the app was added: later changes (a list_changed, a new version, a restart) reach its users only after a manual Refresh of the app in ChatGPT's settings.",
		Sources: []Source{
			report("openai/openai-apps-sdk-examples#23 (manual refresh only)", "https://github.com/openai/openai-apps-sdk-examples/issues/23"),
			report("sunpeak: refresh the app from the connector modal on every change", "https://sunpeak.ai/blogs/chatgpt-apps-what-i-wish-i-knew")}},
	{ID: "chatgpt/read-only-hint", Client: ChatGPT,
		Says:    "readOnlyHint: true lets ChatGPT skip its \"Are you sure?\" confirmation; a tool without it is treated as a write action, which ChatGPT asks the user to confirm.",
		Sources: []Source{docsAppsRef, docsAppsTools}},
	{ID: "chatgpt/hints", Client: ChatGPT,
		Says:    "The Apps SDK reference lists destructiveHint and openWorldHint too; apps submitted for review must set and justify their annotations.",
		Sources: []Source{docsAppsRef, report("modelcontextprotocol/ext-apps#190", "https://github.com/modelcontextprotocol/ext-apps/issues/190")}},
	{ID: "chatgpt/meta", Client: ChatGPT,
		Says:    "ChatGPT reads the tool's _meta: openai/outputTemplate (the component rendering the result), openai/widgetAccessible, and openai/toolInvocation/invoking and /invoked (status texts of at most 64 characters).",
		Sources: []Source{docsAppsRef}},

	{ID: "vscode/prefix", Client: VSCode,
		Says:    "VS Code prefixes each tool with mcp_<server>_: the server's name (its announced title or name) lowercased, runs of characters outside [a-z0-9_.-] made one _, the prefix cut to 18 characters; a second server of the same prefix gets mcp_<server>2_.",
		Sources: []Source{srcVSCodePrefix}},
	{ID: "vscode/name-characters", Client: VSCode,
		Says:    "VS Code replaces each character of a tool name outside [a-zA-Z0-9_-] with _ (logging \"Tools names may only contain [a-z0-9_-]\").",
		Sources: []Source{srcVSCodeServer, report("sxhxliang/mcp-access-point#10 (the warning)", "https://github.com/sxhxliang/mcp-access-point/issues/10")}},
	{ID: "vscode/name-length", Client: VSCode,
		Says:    "VS Code cuts the prefixed name to 64 characters (dots made _); two tools that end up with one name collide, and which VS Code keeps is not documented.",
		Sources: []Source{srcVSCodeServer, srcVSCodePrefix, report("microsoft/vscode#243602", "https://github.com/microsoft/vscode/issues/243602")}},
	{ID: "vscode/empty-description", Client: VSCode,
		Says:    "VS Code gives a tool without a description the description <empty>.",
		Sources: []Source{srcVSCodeServer}},
	{ID: "vscode/visibility", Client: VSCode,
		Says:    "VS Code gives the model only the tools whose _meta.ui.visibility, when it is an array, includes \"model\"; one for views alone is not registered as a tool, and the 128-tool limit counts only the others.",
		Sources: []Source{srcVSCodeVisib, docsAppsVisibility}},
	{ID: "vscode/tool-count", Client: VSCode,
		Says: "VS Code sends at most 128 tools in one chat request, counting every server's.",
		Sources: []Source{report("postmanlabs/postman-mcp-server#26", "https://github.com/postmanlabs/postman-mcp-server/pull/26"),
			report("microsoft/vscode#243944", "https://github.com/microsoft/vscode/issues/243944")}},

	{ID: "cursor/combined-length", Client: Cursor,
		Says: "Cursor filters out a tool whose server name and tool name together reach 60 characters (its warning: \"Combined server and tool name length (60) exceeds 60 characters\").",
		Sources: []Source{report("ComposioHQ/composio#2788 (the warning, for 1 + 59 characters)", "https://github.com/ComposioHQ/composio/issues/2788"),
			report("awslabs/mcp#1283", "https://github.com/awslabs/mcp/issues/1283"),
			report("executeautomation/mcp-playwright#145", "https://github.com/executeautomation/mcp-playwright/issues/145")}},
	{ID: "cursor/first-40", Client: Cursor,
		Says: "Cursor's documentation said it sends only the first 40 tools to the Agent (quoted in 2025; a later Cursor may send more).",
		Sources: []Source{report("bun913/mcp-testrail#6 (quoting Cursor's docs)", "https://github.com/bun913/mcp-testrail/issues/6"),
			report("anyproto/anytype-mcp#5", "https://github.com/anyproto/anytype-mcp/issues/5")}},

	{ID: "gemini/prefix", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 names each MCP tool mcp_<server>_<tool> (no second mcp_ when the server's name starts with it), each character outside [a-zA-Z0-9_.:-] made _.",
		Sources: []Source{codeGeminiName, wireGemini}},
	{ID: "gemini/name-length", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 shortens a name over 63 characters (prefix included) to its first 30 characters, ..., and its last 30.",
		Sources: []Source{codeGeminiName, wireGemini}},
	{ID: "gemini/nullable", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 rewrites every type: [X, \"null\"] in an input schema (at any depth) to type: X with nullable: true.",
		Sources: []Source{codeGeminiNull, wireGemini}},
	{ID: "gemini/wait-for-previous", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 adds a boolean property wait_for_previous to every tool whose input schema is of type object (the model uses it to order parallel calls).",
		Sources: []Source{codeGeminiWait, wireGemini}},

	{ID: "gemini/result-limits", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 wraps an MCP tool's text result in <untrusted_context> tags; over 40,000 characters (tools.truncateToolOutputThreshold) it saves the output to a file and gives the model \"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: PATH\", the first fifth of the limit, \"... [N characters omitted] ...\" and the rest from the end (a 300 KB result reached the model as 40,000 of its characters).",
		Sources: []Source{codeGeminiResult, wireGeminiResult}},
	{ID: "gemini/visibility", Client: Gemini,
		Says:    "Gemini CLI 0.61.0 does not read MCP Apps' visibility: a tool for views alone (_meta.ui.visibility without \"model\") is given to the model like any other, and costs what the others do.",
		Sources: []Source{wireGeminiVisib, docsAppsVisibility}},

	{ID: "codex/prefix", Client: Codex,
		Says:    "Codex 0.169.0 names each MCP tool mcp__<server>__<tool>, each character outside [a-zA-Z0-9_] made _ (a JavaScript identifier: get.weather is mcp__wx__get_weather, rich-tool mcp__wx__rich_tool); a name over 64 characters is kept whole.",
		Sources: []Source{wireCodex, codeCodexName, srcCodexTS}},
	{ID: "codex/code-mode", Client: Codex,
		Says:    "Codex 0.169.0 gives its model MCP tools as methods of its exec tool's JavaScript tools object: the description is the server's (whole: 3,000 characters were sent), a blank line, and \"exec tool declaration:\" with a TypeScript declaration of the input (properties sorted, optional unless required, descriptions as // comments, type [X, \"null\"] as X | null, a top-level anyOf as a union); no JSON Schema reaches the model.",
		Sources: []Source{wireCodex, srcCodexTS}},
	{ID: "codex/deferred", Client: Codex,
		Says:    "Codex 0.169.0 sends MCP tools deferred: its first request to the model defines none of them and names only each server's namespace (mcp__<server>) under \"Deferred tool namespaces\"; the model finds them by reading ALL_TOOLS ({name, description}) in its exec tool.",
		Sources: []Source{wireCodexDefer, wireCodex}},
	{ID: "codex/visibility", Client: Codex,
		Says:    "Codex 0.169.0 keeps from the model a tool whose _meta.ui.visibility leaves out \"model\" (observed for [\"app\"]: not in ALL_TOOLS); how it reads a _meta.ui or visibility of another shape was not observed (the view reads it as the MCP Apps specification does).",
		Sources: []Source{wireCodexVisib, docsAppsVisibility}},
	{ID: "codex/result-limits", Client: Codex,
		Says:    "Codex 0.169.0 cuts its exec tool's output to max_output_tokens (10,000 by default, 4 bytes a token): a 300 KB result the model's script output reached it as \"Warning: truncated output (original token count: 76800)\", \"Total output lines: 1\", then its first 20,000 bytes, \"\u202666800 tokens truncated\u2026\" and its last 20,000.",
		Sources: []Source{wireCodexBig}},

	{ID: "opencode/prefix", Client: OpenCode,
		Says:    "opencode 1.18.33 names each MCP tool <server>_<tool>, each character of either outside [a-zA-Z0-9_-] made _ (get.weather of wx is wx_get_weather; héllo wörld is h_llo_w_rld); a name over 64 characters is sent whole.",
		Sources: []Source{wireOpenCode, wireOpenCodeList}},
	{ID: "opencode/schema", Client: OpenCode,
		Says:    "opencode 1.18.33 sends an input schema with type \"object\", properties ({} when absent) and additionalProperties: false (replacing true or a schema); keys come type, properties, required, then the rest as served. Descriptions go unchanged (a 3,000-character one whole); a top-level anyOf and type [X, \"null\"] are sent as served.",
		Sources: []Source{wireOpenCode, wireOpenCodeList}},
	{ID: "opencode/invalid-list", Client: OpenCode,
		Says:    "A tools/list with one tool whose inputSchema is not of type \"object\" is refused whole by opencode 1.18.33's MCP SDK: none of that server's tools reach the model.",
		Sources: []Source{wireOpenCodeList}},
	{ID: "opencode/result-limits", Client: OpenCode,
		Says:    "opencode 1.18.33 gave its model a 300 KB one-line result as \"...307200 bytes truncated...\" and \"The tool call succeeded but the output was truncated. Full output saved to: PATH\", with instructions to have an agent read the file: none of the text itself.",
		Sources: []Source{wireOpenCodeBig}},

	{ID: "copilot/prefix", Client: Copilot,
		Says:    "Copilot CLI 1.0.102 names each MCP tool <server>-<tool>: a name with characters outside ASCII becomes punycode (héllo wörld is xn--hllo-wrld-b4a2m), then each character outside [a-zA-Z0-9_-] becomes - (get.weather of wx is wx-get-weather).",
		Sources: []Source{wireCopilot, wireCopilotMore}},
	{ID: "copilot/name-length", Client: Copilot,
		Says:    "Copilot CLI 1.0.102 cuts a tool's name, prefix included, to 64 characters.",
		Sources: []Source{wireCopilot}},
	{ID: "copilot/schema", Client: Copilot,
		Says:    "Copilot CLI 1.0.102 sorts an input schema's keys at every depth and adds properties: {} when absent; it removes a top-level anyOf or oneOf, adds each branch's properties as {} and sets the schema's description to \"{anyOf: [the branches as JSON]}\"; it merges a top-level allOf's properties. Descriptions go unchanged (a 3,000-character one whole); type [X, \"null\"] is sent as served.",
		Sources: []Source{wireCopilot, wireCopilotMore}},
	{ID: "copilot/result-limits", Client: Copilot,
		Says:    "Copilot CLI 1.0.102 gave its model a 300 KB result as \"Output too large to read at once (300.0 KB). Saved to: PATH\", advice to read the file with grep, head/tail or jq, and \"Preview (first 500 chars):\" with its first 500 characters.",
		Sources: []Source{wireCopilotBig}},
}

// Rules is every client rule, in the catalogue's order.
func Rules() []Rule { return append([]Rule(nil), catalog...) }

// RulesOf is one client's rules.
func RulesOf(id ID) []Rule {
	var out []Rule
	for _, r := range catalog {
		if r.Client == id {
			out = append(out, r)
		}
	}
	return out
}

// Lookup finds a rule by id.
func Lookup(id string) (Rule, bool) {
	for _, r := range catalog {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Unknown says, per client, what a view cannot tell for want of a source.
func Unknown(id ID) string {
	switch id {
	case Claude:
		return "Which annotations Claude Code uses is not documented."
	case Gemini:
		return "Gemini CLI's server name is its key in settings.json (mcpServers); the view takes the announced one. Descriptions go unchanged (a 3,000-character one was sent whole)."
	case Codex:
		return "Codex's TypeScript for schema keywords other than type, enum, anyOf, oneOf, properties, required, items and additionalProperties, and for an output schema, was not observed; the view writes unknown where it cannot tell."
	case OpenCode:
		return "opencode's server name is its key in opencode.json (mcp); the view takes the announced one. Run with a provider of the OpenAI-compatible kind; other providers may change schemas further."
	case Copilot:
		return "Copilot CLI's server name is its key in mcp-config.json (mcpServers); the view takes the announced one. Which of two tools cut to the same 64 characters it keeps, and what it does to a schema that has a description and a top-level anyOf, were not observed."
	case ChatGPT:
		return "How ChatGPT names tools for its model, and what it cuts, is not documented."
	case VSCode:
		return "VS Code also omits a tool whose inputSchema fails the draft-07 meta-schema; this view does not repeat that check (the doctor's schema rules do)."
	case Cursor:
		return "How Cursor names tools for its model, and which annotations it uses, is not documented."
	}
	return ""
}

// For is the client a handshake's clientInfo names (generic when none is
// recognised): Claude Code sends "claude-code", VS Code "Visual Studio
// Code", Codex "codex-mcp-client", Copilot CLI "copilot-cli", opencode
// "opencode", and Gemini CLI 0.61.0 the SDK
// example's "mcp-test-client", which nothing else is known to send
// (testdata/captures, docs/clients.md).
func For(info mcp.Implementation) ID {
	n := strings.ToLower(info.Name + " " + info.Title)
	switch {
	case strings.Contains(n, "copilot-cli") || strings.Contains(n, "copilot cli"):
		return Copilot
	case strings.Contains(n, "opencode"):
		return OpenCode
	case strings.Contains(n, "codex"):
		return Codex
	case strings.Contains(n, "gemini") || info.Name == "mcp-test-client":
		return Gemini
	case strings.Contains(n, "claude"):
		return Claude
	case strings.Contains(n, "chatgpt") || strings.Contains(n, "openai"):
		return ChatGPT
	case strings.Contains(n, "cursor"): // before VS Code: Cursor is a fork of it
		return Cursor
	case strings.Contains(n, "visual studio code") || strings.Contains(n, "vscode") || strings.Contains(n, "vs code"):
		return VSCode
	}
	return Generic
}
