package ui

import (
	"os"
	"path/filepath"
	"testing"
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
