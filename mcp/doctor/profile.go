package doctor

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
)

// vscodeToolLimit is how many tools VS Code sends in one chat request
// (the client rules' table, mcp/doctor/clients).
const vscodeToolLimit = clients.VSCodeMaxTools

// profileHandshake adds the profile warnings the capabilities reveal.
func (l *Linter) profileHandshake() {
	if l.serverCaps == nil || !hasPath(l.serverCaps, "tools", "listChanged") {
		return
	}
	l.reportOnce("chatgpt-listchanged", "profile/chatgpt-list-frozen", "The server declares tools.listChanged, but ChatGPT ignores list_changed: tools it adds later will not appear until the user refreshes the app.")
	l.reportOnce("claude-listchanged", "profile/claude-list-changed", "The server declares tools.listChanged; Claude clients have been reported not to refetch tools mid-session.")
}

func (l *Linter) profileToolCount(f *mcp.Frame, n int) {
	if n > vscodeToolLimit {
		l.reportOnce("vscode-count", "profile/vscode-tool-count", fmt.Sprintf("The server lists %d tools; VS Code sends at most %d tools per chat request, counting every server's.", n, vscodeToolLimit), f.Seq)
	}
}

// profileClient is the client view each profile's findings come from,
// and the rule they are reported under.
var profileClient = map[Profile]struct {
	id   clients.ID
	rule string
}{
	ProfileClaude:   {clients.Claude, "profile/claude-presents"},
	ProfileVSCode:   {clients.VSCode, "profile/vscode-presents"},
	ProfileGemini:   {clients.Gemini, "profile/gemini-presents"},
	ProfileCodex:    {clients.Codex, "profile/codex-presents"},
	ProfileOpenCode: {clients.OpenCode, "profile/opencode-presents"},
	ProfileCopilot:  {clients.Copilot, "profile/copilot-presents"},
}

// maxViewTools bounds the tools a listing keeps for the view.
const maxViewTools = 10000

// configName is the server's announced name made a configuration name,
// as the Tools pane's view takes it: the name a client's prefix uses is
// the one in its configuration, which the doctor does not know.
var configNameRun = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// profileView reports, per tool, what the profile's client does to it
// beyond adding its usual prefix: renames, cuts, rewrites, drops, each
// with its rule (mcp/doctor/clients) and that rule's first source.
func (l *Linter) profileView(f *mcp.Frame, raws []json.RawMessage) {
	pc, ok := profileClient[l.opts.Profile]
	if !ok || len(raws) == 0 {
		return
	}
	server := strings.Trim(configNameRun.ReplaceAllString(l.serverInfo.Name, "-"), "-")
	if server == "" {
		server = "server"
	}
	v := clients.Present(pc.id, clients.Input{Server: server, ServerTitle: l.serverInfo.Title, Tools: mcp.ParseTools(raws)})
	who := pc.id.Name()
	waits, codeMode, rewrites := 0, 0, 0
	for _, e := range v.Tools {
		var says []string
		if e.Dropped != "" {
			// Named with the rule that drops it, where an effect says so.
			dropped := e.Dropped
			for _, x := range e.Effects {
				if x.Text == e.Dropped {
					dropped += " (" + withSource(x.Rule) + ")"
					break
				}
			}
			says = append(says, dropped)
		}
		for _, x := range e.Effects {
			switch x.Rule {
			case "gemini/wait-for-previous":
				waits++
			case "codex/code-mode":
				codeMode++
			case "opencode/schema":
				rewrites++
			}
			if routineEffect(pc.id, x) || x.Text == e.Dropped {
				continue
			}
			says = append(says, x.Text+" ("+withSource(x.Rule)+")")
		}
		if len(says) == 0 {
			continue
		}
		l.report(pc.rule, fmt.Sprintf("%s sends tool %q to its model as %q: %s.", who, e.Name, e.Shown, strings.Join(says, "; ")), f.Seq)
	}
	if first := v.Tools[0]; len(first.Effects) > 0 && strings.HasSuffix(first.Effects[0].Rule, "/prefix") {
		l.reportOnce(string(pc.id)+"-prefix", pc.rule, fmt.Sprintf("%s names each of the %d tools for its model with its prefix: %q is sent as %q (%s).", who, len(v.Tools), first.Name, first.Shown, withSource(first.Effects[0].Rule)), f.Seq)
	}
	if waits > 0 {
		l.reportOnce("gemini-wait", pc.rule, fmt.Sprintf("%s adds a boolean property wait_for_previous to the input schema of %d of the %d tools (%s).", who, waits, len(v.Tools), withSource("gemini/wait-for-previous")), f.Seq)
	}
	if codeMode > 0 {
		l.reportOnce("codex-code-mode", pc.rule, fmt.Sprintf("%s gives its model no JSON Schema for %d of the %d tools: each one's input is a TypeScript declaration appended to its description (%s).", who, codeMode, len(v.Tools), withSource("codex/code-mode")), f.Seq)
	}
	if rewrites > 0 {
		l.reportOnce("opencode-schema", pc.rule, fmt.Sprintf("%s sends the input schema of %d of the %d tools with type object, properties and additionalProperties: false set: the model is told no other argument is allowed (%s).", who, rewrites, len(v.Tools), withSource("opencode/schema")), f.Seq)
	}
	for _, n := range v.Notes {
		if n.Rule == "claude/tool-search" || n.Rule == "codex/deferred" {
			l.reportOnce(n.Rule, pc.rule, fmt.Sprintf("%s: %s (%s).", who, n.Text, withSource(n.Rule)), f.Seq)
		}
	}
}

// routineEffect is an effect every tool gets (the client's prefix alone,
// Gemini CLI's wait_for_previous), or one another profile rule reports
// already (Claude's name rules are
// profile/claude-tool-name's).
func routineEffect(id clients.ID, x clients.Effect) bool {
	switch {
	case id == clients.Claude && (x.Rule == "claude/prefix" || x.Rule == "claude/name-pattern"):
		return true
	case x.Rule == "gemini/wait-for-previous", x.Rule == "codex/code-mode", x.Rule == "opencode/schema": // every tool's: said once
		return true
	}
	return strings.HasSuffix(x.Rule, "/prefix") && !strings.Contains(x.Text, "(")
}

// withSource names a client rule and its first source.
func withSource(rule string) string {
	r, ok := clients.Lookup(rule)
	if !ok || len(r.Sources) == 0 {
		return "rule " + rule
	}
	return "rule " + rule + "; source: " + r.Sources[0].Label
}
