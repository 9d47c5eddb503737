package config

import "strings"

// ClientFile is a config file in which a client keeps its MCP servers.
type ClientFile struct {
	Client string
	// Path is absolute, or relative to a project's directory (Project).
	Path    string
	Project bool
	// What says which of the client's servers it holds ("user scope").
	What string
}

// ClientFiles are the usual config files of the clients mcpscope tap
// install edits, on the system goos ("linux", "darwin", "windows"), for a
// user whose home directory is home; getenv reads the variables that move
// them (APPDATA, XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME).
func ClientFiles(goos, home string, getenv func(string) string) []ClientFile {
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	join := func(parts ...string) string {
		for i := range parts {
			if i > 0 {
				parts[i] = strings.Trim(parts[i], `/\`)
			}
		}
		return strings.Join(parts, sep)
	}
	config := join(home, ".config") // Linux's XDG_CONFIG_HOME
	if x := getenv("XDG_CONFIG_HOME"); x != "" && goos == "linux" {
		config = x
	}
	appData := getenv("APPDATA")
	if appData == "" {
		appData = join(home, "AppData", "Roaming")
	}
	var appDir, codeUser string
	switch goos {
	case "darwin":
		appDir = join(home, "Library", "Application Support")
		codeUser = join(appDir, "Code", "User")
	case "windows":
		appDir = appData
		codeUser = join(appData, "Code", "User")
	default:
		appDir = config
		codeUser = join(config, "Code", "User")
	}
	claudeDir := home
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		claudeDir = d
	}
	codexDir := join(home, ".codex")
	if d := getenv("CODEX_HOME"); d != "" {
		codexDir = d
	}
	zed := join(config, "zed", "settings.json")
	goose := join(config, "goose", "config.yaml")
	switch goos {
	case "darwin":
		zed = join(home, ".config", "zed", "settings.json")
		goose = join(home, ".config", "goose", "config.yaml")
	case "windows":
		zed = join(appData, "Zed", "settings.json")
		goose = join(appData, "Block", "goose", "config", "config.yaml")
	}
	// opencode finds its files by the XDG rules on every system.
	opencode := join(home, ".config", "opencode")
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		opencode = join(x, "opencode")
	}
	rel := func(parts ...string) string { return join(parts...) }
	return []ClientFile{
		{Client: "Claude Desktop", Path: join(appDir, "Claude", "claude_desktop_config.json")},
		{Client: "Claude Code", Path: join(claudeDir, ".claude.json"), What: `user and local scopes ("projects")`},
		{Client: "Claude Code", Path: ".mcp.json", Project: true, What: "project scope"},
		{Client: "Cursor", Path: join(home, ".cursor", "mcp.json")},
		{Client: "Cursor", Path: rel(".cursor", "mcp.json"), Project: true, What: "project"},
		{Client: "Windsurf", Path: join(home, ".codeium", "windsurf", "mcp_config.json")},
		{Client: "Cline", Path: join(codeUser, "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")},
		{Client: "VS Code", Path: join(codeUser, "mcp.json"), What: `user ("servers")`},
		{Client: "VS Code", Path: join(codeUser, "settings.json"), What: `user settings ("mcp": {"servers"})`},
		{Client: "VS Code", Path: rel(".vscode", "mcp.json"), Project: true, What: "workspace"},
		{Client: "Gemini CLI", Path: join(home, ".gemini", "settings.json"), What: "user"},
		{Client: "Gemini CLI", Path: rel(".gemini", "settings.json"), Project: true, What: "project"},
		{Client: "Codex", Path: join(codexDir, "config.toml")},
		{Client: "Zed", Path: zed, What: `"context_servers"`},
		{Client: "Zed", Path: rel(".zed", "settings.json"), Project: true, What: "project"},
		{Client: "Continue", Path: join(home, ".continue", "config.yaml")},
		{Client: "Continue", Path: rel(".continue", "mcpServers", "*.yaml"), Project: true, What: "workspace"},
		{Client: "Goose", Path: goose, What: `"extensions"`},
		{Client: "Copilot CLI", Path: join(home, ".copilot", "mcp-config.json")},
		{Client: "opencode", Path: join(opencode, "opencode.jsonc"), What: `"mcp" (what opencode mcp add writes)`},
		{Client: "opencode", Path: join(opencode, "opencode.json"), What: `"mcp"`},
		{Client: "opencode", Path: "opencode.json", Project: true, What: "project"},
		{Client: "opencode", Path: "opencode.jsonc", Project: true, What: "project"},
		{Client: "Cline CLI", Path: join(home, ".cline", "data", "settings", "cline_mcp_settings.json"), What: `"mcpServers" (each server's "transport")`},
	}
}
