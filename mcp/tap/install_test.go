package tap

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/config"
)

var update = flag.Bool("update", false, "rewrite the install goldens")

// Each client's config format: install matches its golden (only the
// commands and the starts of their args change), a second install changes
// nothing, and uninstall gives back the original file byte for byte.
func TestInstallUninstallGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "install", "*.json*"))
	var originals []string
	for _, f := range files {
		if !strings.Contains(f, ".installed") {
			originals = append(originals, f)
		}
	}
	if len(originals) != 4 {
		t.Fatalf("want the four client formats, have %v", originals)
	}
	for _, path := range originals {
		t.Run(filepath.Base(path), func(t *testing.T) {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			installed, changed, err := Install(orig, "/usr/local/bin/mcpscope", nil)
			if err != nil {
				t.Fatal(err)
			}
			golden := path + ".installed"
			if *update {
				_ = os.WriteFile(golden, installed, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(installed, want) {
				t.Errorf("install gave\n%s\nwant (%s)\n%s", installed, golden, want)
			}
			if len(changed) == 0 {
				t.Fatal("nothing was installed")
			}
			// The installed file is still a config mcpscope reads, and each
			// server now runs the tap in front of its old command.
			entries, err := config.Locate(installed)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Command != "/usr/local/bin/mcpscope" || !tapped(e) || e.Args[2] != e.Name {
					t.Errorf("%s: command %q args %q", e.Name, e.Command, e.Args)
				}
			}
			again, changedAgain, err := Install(installed, "/usr/local/bin/mcpscope", nil)
			if err != nil || !bytes.Equal(again, installed) || len(changedAgain) != 0 {
				t.Errorf("a second install changed %v (err %v)", changedAgain, err)
			}
			back, undone, err := Uninstall(installed, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, orig) {
				t.Errorf("uninstall gave\n%s\nwant the original\n%s", back, orig)
			}
			if len(undone) != len(changed) {
				t.Errorf("uninstalled %v, installed %v", undone, changed)
			}
		})
	}
}

func TestInstallOneServerAndErrors(t *testing.T) {
	orig, _ := os.ReadFile(filepath.Join("testdata", "install", "claude_desktop.json"))
	one, changed, err := Install(orig, "mcpscope", []string{"files"})
	if err != nil || len(changed) != 1 || changed[0] != "files" {
		t.Fatalf("changed %v err %v", changed, err)
	}
	if !bytes.Contains(one, []byte(`"command": "node"`)) {
		t.Error("a server not named was changed")
	}
	if _, _, err := Install(orig, "mcpscope", []string{"nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown server: %v", err)
	}
	edited := bytes.Replace(one, []byte(`"tap", "--name", "files", "--", "npx", `), []byte(`"tap", "--name", "files", "--", "npx", "--extra", `), 1)
	if _, _, err := Uninstall(edited, nil); err != nil {
		t.Errorf("uninstall after an edit further on: %v", err)
	}
	broken := bytes.Replace(one, []byte(`"tap", "--name", "files", "--", `), []byte(`"tap", "--name", "files",  "--", `), 1)
	if _, _, err := Uninstall(broken, nil); err == nil || !strings.Contains(err.Error(), "backup") {
		t.Errorf("uninstall of an entry edited by hand: %v", err)
	}
}
