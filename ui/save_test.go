package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/panes"
)

func TestWriteNewNeverReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("mcpscope-result-add.json", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := writeNew("mcpscope-result-add.json", []byte("new"))
	if err != nil || name != "mcpscope-result-add-1.json" {
		t.Fatalf("writeNew = %q, %v", name, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mcpscope-result-add.json")); string(b) != "mine" {
		t.Errorf("the existing file was overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "new" {
		t.Errorf("the new file holds %q", b)
	}
}

// Finding 7: a resource URI's control characters never reach a file name,
// and saved files are 0600.
func TestSavedFileNamesAreSanitisedAndPrivate(t *testing.T) {
	t.Chdir(t.TempDir())
	msg := saveBlob(panes.SaveBlobMsg{URI: "res://x/name\x1b]0;pwned\x07end\u202e.txt", Data: []byte("x")})()
	note, ok := msg.(notedMsg)
	if !ok || !note.ok {
		t.Fatalf("save: %#v", msg)
	}
	if strings.ContainsAny(note.text, "\x1b\x07\u202e") {
		t.Errorf("the note carries raw control characters: %q", note.text)
	}
	entries, _ := os.ReadDir(".")
	if len(entries) != 1 {
		t.Fatalf("files: %v", entries)
	}
	name := entries[0].Name()
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			t.Errorf("file name %q keeps %q", name, r)
		}
	}
	if !strings.HasPrefix(name, "mcpscope-name") || !strings.HasSuffix(name, ".txt") {
		t.Errorf("file name %q", name)
	}
	info, _ := entries[0].Info()
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	for in, want := range map[string]string{"..": "resource.bin", "\x1b\x07": "resource.bin", ".hidden": "hidden", strings.Repeat("a", 300): strings.Repeat("a", maxFileName)} {
		if got := SafeFileName(in); got != want {
			t.Errorf("SafeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
