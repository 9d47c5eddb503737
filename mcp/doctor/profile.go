package doctor

import (
	"fmt"

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
