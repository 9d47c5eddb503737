package tap

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/config"
)

// FuzzInstall: no config file, in any of the three languages, makes
// install or uninstall panic; what install writes reads back, a second
// install changes nothing, and uninstall gives every server back what it
// ran before.
func FuzzInstall(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "install", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && filepath.Ext(p) != ".sh" {
			f.Add(byte(config.SyntaxFor(p)), b)
		}
	}
	f.Add(byte(config.JSON), []byte(`{"mcpServers":{"a":{"command":"x","args":[]},"a":{"args":["y"],"command":"z"}}}`))
	f.Add(byte(config.TOML), []byte("[mcp_servers.a]\ncommand = 'x'\n[mcp_servers.b]\nargs = []\n"))
	f.Add(byte(config.YAML), []byte("mcpServers:\n- {name: a, command: x}\n- name: b\n  command: \"y\"\n  args:\n  - z\n"))
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		syntax := config.Syntax(which % 3)
		_, _ = Install(syntax, data, self, []string{"a"})
		_, _ = Uninstall(syntax, data, []string{"a"}, data)
		before, uerr := Uninstall(syntax, data, nil, nil)
		res, err := Install(syntax, data, `C:\Program Files\mcpscope "x".exe`, nil)
		if err != nil {
			return
		}
		if len(res.Changed) == 0 {
			if !bytes.Equal(res.Data, data) {
				t.Fatal("install changed nothing but the text")
			}
			return
		}
		again, err := Install(syntax, res.Data, `C:\Program Files\mcpscope "x".exe`, nil)
		if err != nil || len(again.Changed) != 0 || !bytes.Equal(again.Data, res.Data) {
			t.Fatalf("a second install: %v %v\n%s", again, err, res.Data)
		}
		back, err := Uninstall(syntax, res.Data, nil, data)
		if err != nil {
			t.Fatalf("uninstall of what install wrote: %v\n%s", err, res.Data)
		}
		if uerr != nil || len(before.Changed) != 0 {
			return // some servers were tapped already: uninstall undoes those too
		}
		was, err1 := config.Read(syntax, data)
		now, err2 := config.Read(syntax, back.Data)
		if err1 != nil || err2 != nil || len(was.Entries) != len(now.Entries) {
			t.Fatalf("read back: %v %v", err1, err2)
		}
		for i := range was.Entries {
			a, b := was.Entries[i], now.Entries[i]
			if a.Command != b.Command || !slices.Equal(a.Args, b.Args) {
				t.Fatalf("%s: %q %q after install and uninstall, was %q %q", a.Label(), b.Command, b.Args, a.Command, a.Args)
			}
		}
	})
}
