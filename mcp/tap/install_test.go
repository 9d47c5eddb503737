package tap

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/config"
)

var update = flag.Bool("update", false, "rewrite the install goldens")

const self = "/usr/local/bin/mcpscope"

// configGoldens are the config files of testdata/install: each client's
// format, as the client writes it (*.client.*, from clients.sh) or as its
// documentation shows it, and the shapes that once broke install.
func configGoldens(t *testing.T) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join("testdata", "install", "*"))
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".json", ".jsonc", ".toml", ".yaml":
			if !strings.Contains(filepath.Base(f), ".rewritten.") {
				out = append(out, f)
			}
		}
	}
	return out
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant (%s)\n%s", got, path, want)
	}
}

func read(t *testing.T, syntax config.Syntax, data []byte) *config.Doc {
	t.Helper()
	d, err := config.Read(syntax, data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Each client's config format: install matches its golden (only the
// commands and the fronts of their args change), every stdio server then
// runs its old command through the tap, a second install changes
// nothing, and uninstall gives back the original file byte for byte.
func TestInstallUninstallGoldens(t *testing.T) {
	files := configGoldens(t)
	for _, want := range []string{"claude_code.client.json", "claude_code_project.client.json", "gemini.client.json", "codex.client.toml",
		"opencode.client.jsonc", "cline_cli.client.json",
		"claude_desktop.json", "cursor.json", "windsurf.json", "cline.json", "vscode.jsonc", "vscode_settings.jsonc", "zed.jsonc",
		"continue.yaml", "goose.yaml", "codex_forms.toml", "bom_crlf.json", "odd_order.json", "duplicate_key.json"} {
		if !slices.Contains(files, filepath.Join("testdata", "install", want)) {
			t.Errorf("no golden %s", want)
		}
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			syntax := config.SyntaxFor(path)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			before := read(t, syntax, orig)
			res, err := Install(syntax, orig, self, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, path+".installed", res.Data)
			if len(res.Changed) == 0 {
				t.Fatal("nothing was installed")
			}
			after := read(t, syntax, res.Data)
			if len(after.Entries) != len(before.Entries) {
				t.Fatalf("%d servers before, %d after", len(before.Entries), len(after.Entries))
			}
			for i, e := range after.Entries {
				b := before.Entries[i]
				k, name, ok := Tapped(e.Command, e.Args)
				if !ok || e.Command != self || name != e.Name || e.Args[k+1] != b.Command || !slices.Equal(e.Args[k+2:], b.Args) {
					t.Errorf("%s: %q %q, was %q %q", e.Label(), e.Command, e.Args, b.Command, b.Args)
				}
			}
			again, err := Install(syntax, res.Data, self, nil)
			if err != nil || !bytes.Equal(again.Data, res.Data) || len(again.Changed) != 0 {
				t.Errorf("a second install changed %v (err %v)", again.Changed, err)
			}
			back, err := Uninstall(syntax, res.Data, nil, orig)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back.Data, orig) {
				t.Errorf("uninstall gave\n%s\nwant the original\n%s", back.Data, orig)
			}
			if !slices.Equal(back.Changed, res.Changed) {
				t.Errorf("uninstalled %v, installed %v", back.Changed, res.Changed)
			}
		})
	}
}

// Claude Code, Gemini CLI, Codex, opencode and Cline CLI rewrite their
// whole file on `mcp add`
// (clients.sh records it: tap install --all, then the client's own add of
// "other"). Uninstall recognises the tapped entries by what they run and
// restores each to its command, changing nothing else: the client's
// state, its formatting and the server it added stay.
func TestUninstallAfterTheClientRewroteTheFile(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "install", "*.rewritten.*"))
	var n int
	for _, path := range files {
		if strings.HasSuffix(path, ".uninstalled") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			syntax := config.SyntaxFor(path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			orig, err := os.ReadFile(strings.Replace(path, ".rewritten.", ".client.", 1))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Uninstall(syntax, data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, path+".uninstalled", res.Data)
			was := map[string]config.Entry{}
			for _, e := range read(t, syntax, orig).Entries {
				was[e.Key()] = e
			}
			other := false
			for _, e := range read(t, syntax, res.Data).Entries {
				if _, _, tapped := Tapped(e.Command, e.Args); tapped {
					t.Errorf("%s is still tapped", e.Label())
				}
				if e.Name == "other" {
					other = e.Command == "python3"
					continue
				}
				if w, ok := was[e.Key()]; !ok || w.Command != e.Command || !slices.Equal(w.Args, e.Args) {
					t.Errorf("%s: %q %q, was %q %q", e.Label(), e.Command, e.Args, w.Command, w.Args)
				}
			}
			if !other {
				t.Error("the server the client added is gone")
			}
			// Everything but the tapped entries is as the client left it.
			redo, err := Install(syntax, res.Data, self, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(redo.Changed) != len(res.Changed)+1 {
				t.Errorf("a new install taps %v, the uninstall restored %v", redo.Changed, res.Changed)
			}
		})
	}
	if n < 5 {
		t.Errorf("want the files Claude Code, Gemini CLI, Codex, opencode and Cline CLI rewrote, have %v", files)
	}
}

// The shapes that broke install and uninstall before, one by one.
func TestInstallShapesThatOnceBrokeIt(t *testing.T) {
	load := func(name string) (config.Syntax, []byte) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", "install", name))
		if err != nil {
			t.Fatal(err)
		}
		return config.SyntaxFor(name), b
	}
	t.Run("args before command", func(t *testing.T) {
		syn, b := load("odd_order.json")
		res, err := Install(syn, b, self, []string{"args-first"})
		if err != nil || len(res.Changed) != 1 {
			t.Fatalf("install: %v %v", res, err)
		}
		back, err := Uninstall(syn, res.Data, nil, nil)
		if err != nil || !bytes.Equal(back.Data, b) {
			t.Fatalf("uninstall (it panicked once): %v\n%s", err, back.Data)
		}
	})
	t.Run("server names are written as they are", func(t *testing.T) {
		syn, b := load("odd_order.json")
		res, err := Install(syn, b, self, []string{"r&d <tools>"})
		if err != nil || !bytes.Contains(res.Data, []byte(`"--name", "r&d <tools>", "--"`)) || bytes.Contains(res.Data, []byte(`\u0026`)) {
			t.Fatalf("install: %v\n%s", err, res.Data)
		}
	})
	t.Run("a list written one item a line gets its new items so", func(t *testing.T) {
		syn, b := load("claude_code.client.json")
		res, err := Install(syn, b, self, []string{"weather"})
		if err != nil || bytes.Contains(res.Data, []byte(" \n")) || !bytes.Contains(res.Data, []byte("\"tap\",\n        \"--name\",\n")) {
			t.Fatalf("install: %v\n%s", err, res.Data)
		}
	})
	t.Run("the last of two mcpServers keys", func(t *testing.T) {
		syn, b := load("duplicate_key.json")
		res, err := Install(syn, b, self, nil)
		if err != nil || !slices.Equal(res.Changed, []string{"used"}) || !bytes.Contains(res.Data, []byte(`"old": {"command": "ignored"`)) {
			t.Fatalf("install changed %v: %v\n%s", res.Changed, err, res.Data)
		}
	})
	t.Run("Claude Code's local scope", func(t *testing.T) {
		syn, b := load("claude_code.client.json")
		res, err := Install(syn, b, self, []string{"files"})
		if err != nil || !slices.Equal(res.Changed, []string{`files (project "/home/user/project")`}) {
			t.Fatalf("install --server files: %v %v", res, err)
		}
		all, err := Install(syn, b, self, nil)
		if err != nil || !slices.Contains(all.Changed, `files (project "/home/user/project")`) {
			t.Fatalf("install --all skips the local scope: %v %v", all, err)
		}
	})
	t.Run("a byte order mark", func(t *testing.T) {
		syn, b := load("bom_crlf.json")
		res, err := Install(syn, b, self, nil)
		if err != nil || !bytes.HasPrefix(res.Data, []byte("\xef\xbb\xbf{\r\n")) {
			t.Fatalf("install: %v\n%q", err, res.Data)
		}
	})
	t.Run("a URL server is named as one", func(t *testing.T) {
		syn, b := load("claude_code.client.json")
		_, err := Install(syn, b, self, []string{"remote"})
		if err == nil || !strings.Contains(err.Error(), "URL server") || !strings.Contains(err.Error(), "--listen") {
			t.Fatalf("install --server remote: %v", err)
		}
		_, err = Install(syn, b, self, []string{"nope"})
		if err == nil || !strings.Contains(err.Error(), "weather") {
			t.Fatalf("an unknown name does not list the file's servers: %v", err)
		}
	})
}

// An empty list right after the command, written as install writes the
// args it adds to a server that has none, looks the same once filled:
// the backup says which it was, and without one the list goes (a server
// without args and one with an empty list run alike).
func TestUninstallTellsAnEmptyListFromNoneByTheBackup(t *testing.T) {
	for _, tc := range []struct {
		syntax config.Syntax
		text   string
	}{
		{config.JSON, `{"mcpServers": {"a": {"command": "x", "args": []}}}`},
		{config.TOML, "[mcp_servers.a]\ncommand = \"x\"\nargs = []\n"},
		{config.YAML, "mcpServers:\n  - name: a\n    command: x\n    args: []\n"},
	} {
		res, err := Install(tc.syntax, []byte(tc.text), self, nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Uninstall(tc.syntax, res.Data, nil, []byte(tc.text))
		if err != nil || string(back.Data) != tc.text {
			t.Errorf("with the backup: %v\n%s", err, resData(back))
		}
		bare, err := Uninstall(tc.syntax, res.Data, nil, nil)
		if err != nil || bytes.Contains(bare.Data, []byte("args")) {
			t.Errorf("without a backup: %v\n%s", err, resData(bare))
		}
	}
	// Goose requires "args": its list stays, empty.
	goose := "extensions:\n  a:\n    cmd: x\n    args: [tap, --name, a, --, y]\n"
	res, err := Uninstall(config.YAML, []byte(goose), nil, nil)
	if err != nil || string(res.Data) != "extensions:\n  a:\n    cmd: y\n    args: []\n" {
		t.Errorf("Goose: %v\n%s", err, resData(res))
	}
}

// A tap written by hand (docs/tap.md's step 1, flags, --name=) is recognised
// by what it runs and undone without any backup, in each language.
func TestUninstallATapWrittenByHand(t *testing.T) {
	for _, tc := range []struct {
		syntax   config.Syntax
		in, want string
	}{
		{config.JSON, `{"mcpServers": {"weather": {
  "command": "mcpscope",
  "args": ["tap", "--name", "weather", "--", "node", "/path/to/build/index.js"]
}}}`, `{"mcpServers": {"weather": {
  "command": "node",
  "args": ["/path/to/build/index.js"]
}}}`},
		{config.JSON, `{"mcpServers": {"w": {"command": "/home/me/go/bin/mcpscope", "args": ["tap", "--record-secrets", "--name=w", "--no-live", "--", "node", "a.js"]}}}`,
			`{"mcpServers": {"w": {"command": "node", "args": ["a.js"]}}}`},
		// Written as tap install adds args to a server without any: the
		// emptied list goes with it.
		{config.JSON, `{"mcpServers": {"w": {"command": "scope", "args": ["tap", "--", "uvx"]}}}`,
			`{"mcpServers": {"w": {"command": "uvx"}}}`},
		{config.JSON, `{"mcpServers": {"w": {"command": "scope",
  "args": ["tap", "--", "uvx"]}}}`, `{"mcpServers": {"w": {"command": "uvx",
  "args": []}}}`},
		{config.TOML, "[mcp_servers.w]\ncommand = \"mcpscope\"\nargs = [\n  \"tap\",\n  \"--\",\n  \"uvx\", # the server\n  \"x\",\n]\n",
			"[mcp_servers.w]\ncommand = \"uvx\"\nargs = [\n  \"x\",\n]\n"},
		{config.YAML, "mcpServers:\n  - name: w\n    command: mcpscope\n    args:\n      - tap\n      - --\n      - uvx\n",
			"mcpServers:\n  - name: w\n    command: uvx\n    args: []\n"},
	} {
		res, err := Uninstall(tc.syntax, []byte(tc.in), nil, nil)
		if err != nil || string(res.Data) != tc.want {
			t.Errorf("uninstall of\n%s\ngave %v\n%s\nwant\n%s", tc.in, err, resData(res), tc.want)
		}
	}
	// Something else that happens to start with "tap" is not a tap.
	notTap := `{"mcpServers": {"k": {"command": "kubectl", "args": ["tap", "pods", "--", "x"]}}}`
	res, err := Uninstall(config.JSON, []byte(notTap), nil, nil)
	if err != nil || len(res.Changed) != 0 {
		t.Errorf("uninstall changed %v (%v)", res.Changed, err)
	}
}

func resData(r *Edited) []byte {
	if r == nil {
		return nil
	}
	return r.Data
}

// The goldens are what the pinned clients write: clients.sh, run again
// with the clients .ci/run installs (MCPSCOPE_CLIENTS, their bin
// directory), makes the same files.
func TestGoldensAreWhatTheClientsWrite(t *testing.T) {
	bin := os.Getenv("MCPSCOPE_CLIENTS")
	if bin == "" {
		t.Skip("MCPSCOPE_CLIENTS is not set (.ci/run sets it)")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("testdata", "install", "clients.sh"))
	cmd.Env = append(os.Environ(), "OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clients.sh: %v\n%s", err, b)
	}
	made, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(made) < 11 {
		t.Fatalf("clients.sh made %v", made)
	}
	for _, p := range made {
		got, _ := os.ReadFile(p)
		want, err := os.ReadFile(filepath.Join("testdata", "install", filepath.Base(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the client writes now (%v):\n%s", filepath.Base(p), err, got)
		}
	}
}

// opencode writes a server's command and args as one list, Cline CLI
// puts them inside "transport", Copilot CLI types them "local": written
// inline or a server named as VS Code's map is, install and uninstall
// still find and undo them.
func TestInstallCommandListAndTransportShapes(t *testing.T) {
	for _, tc := range []struct{ in, installed string }{
		{`{"mcp": {"w": {"type": "local", "command": ["uvx"]}}}`,
			`{"mcp": {"w": {"type": "local", "command": ["/usr/local/bin/mcpscope", "tap", "--name", "w", "--", "uvx"]}}}`},
		{`{"mcp": {"servers": {"type": "local", "command": ["node",  "a.js"]}}}`,
			`{"mcp": {"servers": {"type": "local", "command": ["/usr/local/bin/mcpscope",  "tap",  "--name",  "servers",  "--",  "node",  "a.js"]}}}`},
		{`{"mcpServers": {"w": {"transport": {"type": "stdio", "command": "uvx"}}}}`,
			`{"mcpServers": {"w": {"transport": {"type": "stdio", "command": "/usr/local/bin/mcpscope", "args": ["tap", "--name", "w", "--", "uvx"]}}}}`},
		// Copilot CLI's ~/.copilot/mcp-config.json.
		{`{"mcpServers": {"w": {"type": "local", "command": "node", "args": ["a.js"], "tools": ["*"]}}}`,
			`{"mcpServers": {"w": {"type": "local", "command": "/usr/local/bin/mcpscope", "args": ["tap", "--name", "w", "--", "node", "a.js"], "tools": ["*"]}}}`},
	} {
		res, err := Install(config.JSON, []byte(tc.in), self, nil)
		if err != nil || string(res.Data) != tc.installed {
			t.Errorf("install of\n%s\ngave %v\n%s\nwant\n%s", tc.in, err, resData(res), tc.installed)
			continue
		}
		back, err := Uninstall(config.JSON, res.Data, nil, nil)
		if err != nil || string(back.Data) != tc.in {
			t.Errorf("uninstall gave %v\n%s\nwant\n%s", err, resData(back), tc.in)
		}
	}
	// A remote server of either shape is a URL server, not an error.
	for _, in := range []string{`{"mcp": {"r": {"type": "remote", "url": "https://example.com/mcp"}}}`,
		`{"mcpServers": {"r": {"transport": {"type": "streamableHttp", "url": "https://example.com/mcp"}}}}`} {
		d := read(t, config.JSON, []byte(in))
		if len(d.Others) != 1 || !d.Others[0].URL {
			t.Errorf("%s: others %+v", in, d.Others)
		}
	}
}
