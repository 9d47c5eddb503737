package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/panes"
)

func TestWriteNewNeverReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("mcpscope-result-add.json", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := writeNew("", "mcpscope-result-add.json", []byte("new"))
	if err != nil || name != "mcpscope-result-add-2.json" {
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
	msg := saveBlob("", panes.SaveBlobMsg{URI: "res://x/name\x1b]0;pwned\x07end\u202e.txt", Data: []byte("x")})()
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

// Saved files are named from the tool or resource and get an extension
// from the mime type (a blob is not saved as a bare ./mcpscope-2).
func TestSaveNamesGetAnExtensionFromTheMimeType(t *testing.T) {
	for _, c := range []struct {
		msg  panes.SaveBlobMsg
		want string
	}{
		{panes.SaveBlobMsg{URI: "test://static/resource/2", MimeType: "application/octet-stream"}, "mcpscope-2.bin"},
		{panes.SaveBlobMsg{URI: "test://static/resource/2", MimeType: "image/png"}, "mcpscope-2.png"},
		{panes.SaveBlobMsg{URI: "test://static/resource/2"}, "mcpscope-2.bin"},
		{panes.SaveBlobMsg{URI: "file:///tmp/photo.PNG", MimeType: "image/png"}, "mcpscope-photo.PNG"},
		{panes.SaveBlobMsg{URI: "file:///tmp/notes.txt"}, "mcpscope-notes.txt"},
		{panes.SaveBlobMsg{URI: "file:///tmp/data.txt", MimeType: "application/json"}, "mcpscope-data.txt.json"},
		{panes.SaveBlobMsg{URI: "the result of tools/call echo", Name: "result-echo", MimeType: "application/json"}, "mcpscope-result-echo.json"},
		{panes.SaveBlobMsg{Name: "img/../x-0", MimeType: "image/png"}, "mcpscope-img_.._x-0.png"},
		{panes.SaveBlobMsg{Name: "get_image-1", MimeType: "image/jpeg"}, "mcpscope-get_image-1.jpg"},
		{panes.SaveBlobMsg{Name: "sound-0", MimeType: "audio/wav"}, "mcpscope-sound-0.wav"},
		{panes.SaveBlobMsg{Name: "readme", MimeType: "text/plain; charset=utf-8"}, "mcpscope-readme.txt"},
		{panes.SaveBlobMsg{Name: "doc", MimeType: "text/markdown"}, "mcpscope-doc.md"},
		{panes.SaveBlobMsg{Name: "card", MimeType: "application/vnd.example.card+json"}, "mcpscope-card.json"},
		{panes.SaveBlobMsg{Name: "thing", MimeType: "application/x-no-such-type"}, "mcpscope-thing.bin"},
		{panes.SaveBlobMsg{Name: "thing", MimeType: "not a mime type"}, "mcpscope-thing.bin"},
		{panes.SaveBlobMsg{Name: "\x1b\x07", MimeType: "image/gif"}, "mcpscope-resource.gif"},
	} {
		if got := saveName(c.msg); got != c.want {
			t.Errorf("saveName(%+v) = %q, want %q", c.msg, got, c.want)
		}
	}
}

// --save-dir picks the directory; nothing is overwritten (-2, -3); the
// files are 0600; nothing lands in the working directory.
func TestSaveDirNeverOverwrites(t *testing.T) {
	cwd, dir := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	msg := panes.SaveBlobMsg{URI: "test://static/resource/2", MimeType: "image/png", Data: []byte("png")}
	var notes []string
	for range 3 {
		note := saveBlob(dir, msg)().(notedMsg)
		if !note.ok {
			t.Fatalf("save: %s", note.text)
		}
		notes = append(notes, note.text)
	}
	for i, name := range []string{"mcpscope-2.png", "mcpscope-2-2.png", "mcpscope-2-3.png"} {
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v (notes %q)", name, err, notes)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", name, info.Mode().Perm())
		}
		if !strings.Contains(notes[i], p) {
			t.Errorf("note %q does not name %s", notes[i], p)
		}
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Errorf("the working directory got %v", entries)
	}
}

// Through the root model: w in a result view writes the image to the save
// directory as <tool>-<block>.png; s writes the result as .json.
func TestResultSavesThroughTheRoot(t *testing.T) {
	dir := t.TempDir()
	m := newTestModel("dark", 120, 35)
	m.cfg.SaveDir = dir
	feed(m, sessionEvents())
	_, cmd := m.Update(toolCalledMsg{result: panes.ToolResultMsg{Name: "get_image", Args: json.RawMessage(`{}`),
		Result: json.RawMessage(`{"content":[{"type":"text","text":"a picture"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}`)}})
	runCmd(m, cmd)
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})
	runCmd(m, cmd)
	_, cmd = m.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
	runCmd(m, cmd)
	for _, name := range []string{"mcpscope-get_image-1.png", "mcpscope-result-get_image.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			entries, _ := os.ReadDir(dir)
			t.Errorf("%s: %v (the directory holds %v)", name, err, entries)
		}
	}
}
