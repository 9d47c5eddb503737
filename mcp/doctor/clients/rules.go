package clients

import (
	"regexp"
	"strings"
	"sync"

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
)

// All lists the clients in the order a picker offers them.
func All() []ID { return []ID{Generic, Claude, ChatGPT, VSCode, Cursor} }

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
	}
	return "generic client"
}

// NamesKnown reports whether a source says how the client names tools
// for its model (Claude Code, VS Code); for the others a view shows the
// server's name and says the rest is not known.
func (id ID) NamesKnown() bool { return id == Claude || id == VSCode }

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
// source code, or traffic and reports from its users.
type Source struct {
	Kind  string // "docs", "source", "report" (an issue: users' observation), "capture"
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
	// ClaudeDescriptionMax is where Claude Code cuts a tool's description.
	ClaudeDescriptionMax = 2048
	// ClaudeResultWarn and ClaudeResultMax are Claude Code's result limits
	// in tokens (the second is MAX_MCP_OUTPUT_TOKENS's default).
	ClaudeResultWarn = 10000
	ClaudeResultMax  = 25000
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

// AnthropicToolName is the pattern the Anthropic API requires of a tool
// name.
var AnthropicToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

var (
	docsClaudeMCP   = Source{"docs", "Claude Code docs: Connect Claude Code to tools via MCP", "https://code.claude.com/docs/en/mcp"}
	docsAnthropic   = Source{"docs", "Anthropic API: tool definitions (name pattern)", "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use"}
	docsAppsRef     = Source{"docs", "OpenAI Apps SDK reference: tool descriptor and annotations", "https://developers.openai.com/apps-sdk/reference"}
	docsAppsTools   = Source{"docs", "OpenAI Apps SDK: define tools (confirmation for write actions)", "https://developers.openai.com/apps-sdk/plan/tools"}
	srcVSCodeServer = Source{"source", "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpServer.ts (_normalizeTool, McpTool)", "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpServer.ts"}
	srcVSCodePrefix = Source{"source", "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpService.ts (McpPrefixGenerator), mcpTypes.ts (McpToolName)", "https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/mcp/common/mcpService.ts"}
)

func report(label, url string) Source { return Source{"report", label, url} }

// catalog is every client rule. docs/clients.md explains each with its
// sources; a test keeps the two in step.
var catalog = []Rule{
	{ID: "generic/as-served", Client: Generic,
		Says:    "The list as the server sent it: nothing renamed, cut or dropped. A name that appears twice is marked: the specification asks for unique names and says nothing of which one a client keeps.",
		Sources: []Source{{"docs", "MCP specification 2025-11-25: Tools, tool names", "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"}}},

	{ID: "claude/prefix", Client: Claude,
		Says: "Claude Code names each MCP tool mcp__<server>__<tool> for the model, <server> being the name the server has in its configuration.",
		Sources: []Source{docsClaudeMCP,
			report("anthropics/claude-code#19770 (observed names)", "https://github.com/anthropics/claude-code/issues/19770"),
			report("ChromeDevTools/chrome-devtools-mcp#1169", "https://github.com/ChromeDevTools/chrome-devtools-mcp/issues/1169")}},
	{ID: "claude/name-pattern", Client: Claude,
		Says: "The Anthropic API refuses a tool name, prefix included, outside ^[a-zA-Z0-9_-]{1,64}$: the request fails, so every turn fails while the tool is listed.",
		Sources: []Source{docsAnthropic,
			report("anthropics/claude-code#467 (tools.11.custom.name: String should match pattern)", "https://github.com/anthropics/claude-code/issues/467"),
			report("anthropics/claude-code#2412 (at most 64 characters)", "https://github.com/anthropics/claude-code/issues/2412"),
			report("thedotmack/claude-mem#360 (a 65-character prefixed name)", "https://github.com/thedotmack/claude-mem/pull/360")}},
	{ID: "claude/description-2kb", Client: Claude,
		Says:    "Claude Code truncates tool descriptions (and server instructions) at 2 KB each.",
		Sources: []Source{docsClaudeMCP}},
	{ID: "claude/tool-search", Client: Claude,
		Says:    "With tool search (the default on Anthropic's API; off on Vertex AI and behind a non-first-party ANTHROPIC_BASE_URL) only the tool names load at session start; a definition enters the context when Claude searches for it. A tool whose _meta has anthropic/alwaysLoad: true loads at start.",
		Sources: []Source{docsClaudeMCP}},
	{ID: "claude/result-limits", Client: Claude,
		Says:    "Claude Code warns when a tool's output exceeds 10,000 tokens and refuses more than 25,000 by default (MAX_MCP_OUTPUT_TOKENS); _meta anthropic/maxResultSizeChars on the tool raises its threshold for text, up to 500,000 characters.",
		Sources: []Source{docsClaudeMCP}},
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
// Code"; Gemini CLI ("mcp-test-client") and Codex ("codex-mcp-client")
// get the generic view (testdata/captures, docs/clients.md).
func For(info mcp.Implementation) ID {
	n := strings.ToLower(info.Name + " " + info.Title)
	switch {
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
