package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// Where each client keeps its servers, on each system: the files tap
// install lists without --config.
func TestClientFilesOnEachSystem(t *testing.T) {
	env := map[string]string{"APPDATA": `C:\Users\u\AppData\Roaming`}
	getenv := func(k string) string { return env[k] }
	has := func(goos, home string, want ...string) {
		t.Helper()
		var paths []string
		for _, f := range ClientFiles(goos, home, getenv) {
			paths = append(paths, f.Client+": "+f.Path)
		}
		for _, w := range want {
			if !slices.Contains(paths, w) {
				t.Errorf("%s: no %q in\n%s", goos, w, strings.Join(paths, "\n"))
			}
		}
	}
	has("linux", "/home/u",
		"Claude Desktop: /home/u/.config/Claude/claude_desktop_config.json",
		"Claude Code: /home/u/.claude.json", "Claude Code: .mcp.json",
		"Gemini CLI: /home/u/.gemini/settings.json", "Codex: /home/u/.codex/config.toml",
		"Zed: /home/u/.config/zed/settings.json", "Goose: /home/u/.config/goose/config.yaml",
		"Continue: /home/u/.continue/config.yaml", "Windsurf: /home/u/.codeium/windsurf/mcp_config.json",
		"Cline: /home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
		"VS Code: /home/u/.config/Code/User/mcp.json", "Cursor: /home/u/.cursor/mcp.json",
		"Copilot CLI: /home/u/.copilot/mcp-config.json", "opencode: /home/u/.config/opencode/opencode.jsonc",
		"opencode: /home/u/.config/opencode/opencode.json", "opencode: opencode.json",
		"Cline CLI: /home/u/.cline/data/settings/cline_mcp_settings.json")
	has("darwin", "/Users/u",
		"Claude Desktop: /Users/u/Library/Application Support/Claude/claude_desktop_config.json",
		"VS Code: /Users/u/Library/Application Support/Code/User/mcp.json",
		"Zed: /Users/u/.config/zed/settings.json", "Goose: /Users/u/.config/goose/config.yaml",
		"Codex: /Users/u/.codex/config.toml")
	has("windows", `C:\Users\u`,
		`Claude Desktop: C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`,
		`VS Code: C:\Users\u\AppData\Roaming\Code\User\mcp.json`,
		`Gemini CLI: C:\Users\u\.gemini\settings.json`, `Codex: C:\Users\u\.codex\config.toml`,
		`Zed: C:\Users\u\AppData\Roaming\Zed\settings.json`,
		`Goose: C:\Users\u\AppData\Roaming\Block\goose\config\config.yaml`,
		`Cursor: .cursor\mcp.json`, `Copilot CLI: C:\Users\u\.copilot\mcp-config.json`,
		`opencode: C:\Users\u\.config\opencode\opencode.jsonc`,
		`Cline CLI: C:\Users\u\.cline\data\settings\cline_mcp_settings.json`)
	env["CODEX_HOME"], env["CLAUDE_CONFIG_DIR"] = "/srv/codex", "/srv/claude"
	env["XDG_CONFIG_HOME"] = "/x"
	has("linux", "/home/u", "Codex: /srv/codex/config.toml", "Claude Code: /srv/claude/.claude.json",
		"opencode: /x/opencode/opencode.jsonc")
}

// `mcpscope --config` reads a file with a byte order mark, and of two
// "mcpServers" keys the last, as the clients do.
func TestParseReadsWhatClientsRead(t *testing.T) {
	f, err := Parse("/w/mcp.json", []byte("\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"mcpServers\": {\"b\": {\"command\": \"y\"}}}"), Options{Home: "/h"})
	if err != nil || !slices.Equal(f.Names(), []string{"b"}) {
		t.Fatalf("parse: %v %v", f, err)
	}
}

// What Rewrite writes for a new value reads back as that value in each
// language.
func TestNewValuesReadBack(t *testing.T) {
	for _, s := range []string{"tap", "--name", "--", "/usr/local/bin/mcpscope", `C:\Program Files\mcpscope.exe`,
		"r&d <tools>", "SQLite MCP", "a: b", "#x", "- x", "yes", "No", "null", "~", "12", "0x1F", "1e3", "@x", "'q'", `"q"`,
		"tab\there", "line\nbreak", "\x7f\u0085\u2028\ufeff", "é😀", "[a, b]", "{a}", "%x", "!x", "&a", "*a", "|", ">"} {
		q := quoteDouble(s)
		var j string
		if err := json.Unmarshal([]byte(q), &j); err != nil || j != s {
			t.Errorf("JSON %s: %q %v", q, j, err)
		}
		var tm map[string]string
		if err := toml.Unmarshal([]byte("k = "+q), &tm); err != nil || tm["k"] != s {
			t.Errorf("TOML %s: %q %v", q, tm["k"], err)
		}
		for _, doc := range []string{"k: " + q, "k: [" + q + "]", "k:\n- " + q} {
			var y map[string]any
			if err := yaml.Unmarshal([]byte(doc), &y); err != nil || !readBack(y["k"], s) {
				t.Errorf("YAML %q: %v %v", doc, y["k"], err)
			}
		}
		if yamlPlainSafe(s) {
			for _, doc := range []string{"k: " + s, "k: [" + s + ", x]", "k:\n- " + s} {
				var y map[string]any
				if err := yaml.Unmarshal([]byte(doc), &y); err != nil || !readBack(y["k"], s) {
					t.Errorf("plain YAML %q: %v %v", doc, y["k"], err)
				}
			}
		}
	}
}

func readBack(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return v == s
	case []any:
		str, ok := v[0].(string)
		return ok && str == s
	}
	return false
}

// The servers each reader finds, and why the others are left alone.
func TestReadFindsEachShape(t *testing.T) {
	for _, tc := range []struct {
		syntax  Syntax
		text    string
		entries []string // label: command args
		others  []string // label: why
	}{
		{JSON, `{"mcpServers": {"a": {"command": "x", "args": ["1"]}, "u": {"url": "https://h/mcp"}, "n": {"args": []}, "b": {"command": 3}, "c": {"command": "y", "args": "z"}},
			"projects": {"/p": {"mcpServers": {"a": {"command": "z"}}}}}`,
			[]string{`a: x [1]`, `a (project "/p"): z []`},
			[]string{`u: a URL server`, `n: it has no "command"`, `b: its "command" is not a string`, `c: its "args" is not a list of strings`}},
		{JSON, `{"context_servers": {"z": {"command": {"path": "p", "args": ["q"]}}, "e": {"source": "extension"}}}`,
			[]string{`z: p [q]`}, []string{`e: it has no "command"`}},
		{JSON, `{"servers": {"s": {"type": "stdio", "command": "c"}, "h": {"type": "http", "url": "u"}}}`,
			[]string{`s: c []`}, []string{`h: a URL server`}},
		{TOML, "[mcp_servers.a]\ncommand = \"x\"\nargs = [\"1\", 2]\n[mcp_servers.b]\nurl = \"https://h\"\n[mcp_servers.c]\ncommand = 'c'\n",
			[]string{`c: c []`}, []string{`a: its "args" is not a list of strings`, `b: a URL server`}},
		{YAML, "extensions:\n  d:\n    type: builtin\n  r:\n    type: sse\n    uri: u\n  s:\n    cmd: |\n      x\n  t:\n    cmd: t\n    args: [1, '2']\n",
			[]string{`t: t [1 2]`}, []string{`d: a built-in extension`, `r: a URL server`, `s: its "cmd" is not written as a plain or quoted string on one line`}},
		{YAML, "mcpServers:\n  a: {command: x}\n  a: {command: y}\n",
			[]string{`a: y []`}, nil},
	} {
		d, err := Read(tc.syntax, []byte(tc.text))
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		var entries, others []string
		for _, e := range d.Entries {
			entries = append(entries, fmt.Sprintf("%s: %s %v", e.Label(), e.Command, e.Args))
		}
		for _, o := range d.Others {
			others = append(others, o.Name+": "+o.Why)
		}
		if !slices.Equal(entries, tc.entries) || !slices.Equal(others, tc.others) {
			t.Errorf("%s:\nentries %q\nothers %q", tc.text, entries, others)
		}
	}
}

// Each language's syntax errors come with a place.
func TestReadRefusesBrokenFiles(t *testing.T) {
	for _, tc := range []struct {
		syntax Syntax
		text   string
		want   string
	}{
		{JSON, "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\"\n}", "line 3"},
		{TOML, "[mcp_servers.a]\ncommand = \n", "line 2"},
		{YAML, "mcpServers:\n  - name: a\n   command: x\n", "invalid YAML"},
		{JSON, "[1]", "not a JSON object"},
		{YAML, "- a\n", "not a YAML mapping"},
	} {
		_, err := Read(tc.syntax, []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}
