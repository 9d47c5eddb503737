package tap

import (
	"testing"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// The clientInfo each real client sends picks its doctor profile, so a
// tap's findings are that client's.
func TestProfileForRealClients(t *testing.T) {
	for _, tc := range []struct {
		info mcp.Implementation
		want doctor.Profile
	}{
		{mcp.Implementation{Name: "claude-code", Title: "Claude Code"}, doctor.ProfileClaude},
		{mcp.Implementation{Name: "codex-mcp-client", Title: "Codex"}, doctor.ProfileCodex},
		{mcp.Implementation{Name: "mcp-test-client", Version: "0.0.1"}, doctor.ProfileGemini},
		{mcp.Implementation{Name: "Visual Studio Code"}, doctor.ProfileVSCode},
		{mcp.Implementation{Name: "opencode", Version: "1.18.33"}, doctor.ProfileOpenCode},
		{mcp.Implementation{Name: "copilot-cli", Version: "1.0.102"}, doctor.ProfileCopilot},
		{mcp.Implementation{Name: "cursor-vscode"}, doctor.ProfileGeneric},
		{mcp.Implementation{Name: "inspector-cli"}, doctor.ProfileGeneric},
	} {
		if got := ProfileFor(tc.info); got != tc.want {
			t.Errorf("ProfileFor(%s) = %s, want %s", tc.info.Name, got, tc.want)
		}
	}
}
