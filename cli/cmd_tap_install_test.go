package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/config"
	"github.com/mcpscope/mcpscope/mcp/tap"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "mcp", "tap", "testdata", "install", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every install that changes the file saves it as it was just before, so
// the backup never lacks what was edited since an earlier install; each
// message that names the backup says how old it is. The file keeps its
// mode, and a link to it stays a link.
func TestTapInstallRefreshesItsBackup(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := readFixture(t, "claude_code.client.json")
	if err := os.WriteFile(real, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, ".claude.json")
	if err := os.Symlink(real, file); err != nil {
		t.Fatal(err)
	}
	backup := file + ".mcpscope-backup"

	out, err, code := runCLI(t, "tap", "install", "--config", file, "--server", "weather", "--command", "/opt/mcpscope")
	if code != exitOK || !strings.Contains(out, "weather now runs through the tap") || !strings.Contains(out, backup+" (written just now)") {
		t.Fatalf("install: exit %d %v\n%s", code, err, out)
	}
	if b, _ := os.ReadFile(backup); !bytes.Equal(b, orig) {
		t.Fatal("the first backup is not the original file")
	}
	// The client changes its file (its own state), then a second install.
	edited, _ := os.ReadFile(file)
	edited = bytes.Replace(edited, []byte(`"migrationVersion": 15`), []byte(`"migrationVersion": 16`), 1)
	if err := os.WriteFile(real, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err, code := runCLI(t, "tap", "install", "--config", file, "--server", "bare", "--command", "/opt/mcpscope"); code != exitOK {
		t.Fatalf("second install: exit %d %v\n%s", code, err, out)
	}
	if b, _ := os.ReadFile(backup); !bytes.Equal(b, edited) {
		t.Fatalf("the backup was not refreshed by the second install:\n%s", b)
	}
	if fi, err := os.Lstat(file); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file: %v %v", fi, err)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600", fi.Mode().Perm())
	}

	out, err, code = runCLI(t, "tap", "uninstall", "--config", file, "--all")
	if code != exitOK || !strings.Contains(out, "weather and bare run their own commands again") {
		t.Fatalf("uninstall: exit %d %v\n%s", code, err, out)
	}
	if b, _ := os.ReadFile(real); !bytes.Equal(b, bytes.Replace(orig, []byte(`"migrationVersion": 15`), []byte(`"migrationVersion": 16`), 1)) {
		t.Fatalf("uninstall lost the client's change or left a tap:\n%s", b)
	}

	// An uninstall that cannot go on names the backup and its age.
	if err := os.WriteFile(real, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-3 * time.Hour)
	_ = os.Chtimes(backup, then, then)
	out, err, code = runCLI(t, "tap", "uninstall", "--config", file, "--all")
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), backup) || !strings.Contains(err.Error(), "3 hours ago") {
		t.Fatalf("uninstall of a broken file: exit %d %v\n%s", code, err, out)
	}
}

// One server says it in the singular.
func TestTapUninstallOfOneServer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"ev": {"command": "mcpscope", "args": ["tap", "--name", "ev", "--", "node", "ev.js"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err, code := runCLI(t, "tap", "uninstall", "--config", file, "--server", "ev")
	if code != exitOK || !strings.Contains(out, "ev runs its own command again; restart the client") {
		t.Fatalf("exit %d %v\n%s", code, err, out)
	}
}

// Without --config, each client's usual files are listed, Gemini CLI's
// and Codex's among them, and those present are marked.
func TestTapInstallListsEachClientsFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, p := range []string{".gemini/settings.json", ".codex/config.toml"} {
		path := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err, code := runCLI(t, "tap", "install")
	if code != exitOK {
		t.Fatalf("exit %d %v", code, err)
	}
	for _, want := range []string{
		"● Gemini CLI      " + filepath.Join(home, ".gemini", "settings.json"),
		"● Codex           " + filepath.Join(home, ".codex", "config.toml"),
		"  Claude Code     " + filepath.Join(home, ".claude.json"),
		"Goose", "Continue", "Zed", "Windsurf", "Cline", "VS Code", "Cursor", "Claude Desktop",
		"  Copilot CLI     " + filepath.Join(home, ".copilot", "mcp-config.json"),
		"  opencode        " + filepath.Join(home, ".config", "opencode", "opencode.jsonc"),
		"  Cline CLI       " + filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the list lacks %q:\n%s", want, out)
		}
	}
}

// A file in a format tap install does not edit is named as such, with
// the entry to write by hand in its language; a URL server says how it
// is tapped instead.
func TestTapInstallNamesWhatItCannotEdit(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"config.json", `{"experimental": {"modelContextProtocolServers": [{"transport": {"type": "stdio", "command": "uvx", "args": ["x"]}}]}}`,
			`Continue's config.json ("experimental"."modelContextProtocolServers") is not a format mcpscope edits`},
		{"config.json", `{"models": []}`, `"command": "mcpscope",`},
		{"other.yaml", "models: []\n", "args: [tap, --name, NAME, --, CMD, ARG]"},
		{"other.toml", "model = \"x\"\n", `args = ["tap", "--name", "NAME", "--", "CMD", "ARG"]`},
	} {
		file := filepath.Join(dir, tc.name)
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err, code := runCLI(t, "tap", "install", "--config", file, "--all")
		if code != exitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: exit %d, %v; want %q", tc.text, code, err, tc.want)
		}
		if b, _ := os.ReadFile(file); string(b) != tc.text {
			t.Errorf("the file was changed: %s", b)
		}
	}
	// Servers of a shape install does not know are an error, for install
	// and uninstall alike, with the entry to write by hand in the shape
	// the file's client reads.
	for _, tc := range []struct{ path, text, want string }{
		{"x.json", `{"mcpServers": {"w": {"launch": {"exe": "uvx"}}}}`, `"command": "mcpscope",`},
		{".cline/data/settings/cline_mcp_settings.json", `{"mcpServers": {"w": {"transport": {"type": "stdio", "exe": "uvx"}}}}`,
			`"transport": {"type": "stdio", "command": "mcpscope", "args": ["tap"`},
		{".config/opencode/opencode.json", `{"mcp": {"w": {"type": "local", "command": 3}}}`, `"command": ["mcpscope", "tap", "--name", "NAME", "--", "CMD", "ARG"]`},
		{".config/opencode/opencode.jsonc", `{"$schema": "https://opencode.ai/config.json"}`, `"command": ["mcpscope", "tap"`},
	} {
		file := filepath.Join(dir, tc.path)
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, verb := range []string{"install", "uninstall"} {
			_, err, code := runCLI(t, "tap", verb, "--config", file, "--all")
			if code != exitUsage || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: exit %d, %v; want %q", verb, tc.path, code, err, tc.want)
			}
		}
		if b, _ := os.ReadFile(file); string(b) != tc.text {
			t.Errorf("the file was changed: %s", b)
		}
	}
	file := filepath.Join(dir, "claude.json")
	if err := os.WriteFile(file, readFixture(t, "claude_code.client.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err, code := runCLI(t, "tap", "install", "--config", file, "--server", "remote")
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "tap --name remote --listen") {
		t.Errorf("a URL server: exit %d %v", code, err)
	}
}

// tap install through the command line on each format's golden, and
// uninstall, give back the original bytes.
func TestTapInstallCommandOnEachFormat(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"codex.client.toml", "goose.yaml", "continue.yaml", "zed.jsonc", "gemini.client.json",
		"opencode.client.jsonc", "cline_cli.client.json"} {
		orig := readFixture(t, name)
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err, code := runCLI(t, "tap", "install", "--config", file, "--all", "--command", "/opt/mcpscope"); code != exitOK {
			t.Fatalf("%s: install exit %d %v\n%s", name, code, err, out)
		}
		b, _ := os.ReadFile(file)
		d, err := config.Read(config.SyntaxFor(name), b)
		if err != nil || len(d.Entries) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range d.Entries {
			if _, _, ok := tap.Tapped(e.Command, e.Args); !ok {
				t.Errorf("%s: %s is not tapped", name, e.Label())
			}
		}
		if out, err, code := runCLI(t, "tap", "uninstall", "--config", file, "--all"); code != exitOK {
			t.Fatalf("%s: uninstall exit %d %v\n%s", name, code, err, out)
		}
		if b, _ := os.ReadFile(file); !bytes.Equal(b, orig) {
			t.Errorf("%s: not the original after uninstall:\n%s", name, b)
		}
	}
}
