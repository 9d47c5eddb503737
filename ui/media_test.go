package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/panes"
)

// o on a media block: a 0600 file in a 0700 directory of its own, handed
// to the system's opener, and gone when the UI closes; a type the system
// might run is refused.
func TestOpenMediaThroughATemporaryFile(t *testing.T) {
	var opened []string
	oldOpener, oldStart := openurl.Opener, openurl.Start
	t.Cleanup(func() { openurl.Opener, openurl.Start = oldOpener, oldStart })
	openurl.Opener = func() (string, error) { return "/usr/bin/xdg-open", nil }
	openurl.Start = func(_, path string) error { opened = append(opened, path); return nil }
	t.Setenv("TMPDIR", t.TempDir())

	m := newTestModel("dark", 80, 24)
	data := []byte("\x89PNG\r\n\x1a\n pretend")
	cmd := m.openMedia(panes.OpenMediaMsg{What: "an image/png block", Name: "shot/../x-1", MimeType: "image/png", Data: data})
	noted, ok := cmd().(notedMsg)
	if !ok || !noted.ok || len(opened) != 1 {
		t.Fatalf("got %+v, opened %v", noted, opened)
	}
	path := opened[0]
	if !strings.HasSuffix(path, ".png") || strings.Contains(filepath.Base(path), "/") || !strings.HasPrefix(filepath.Base(path), "shot_.._x-1-") {
		t.Fatalf("file %s", path)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Fatal("the file is not the block's bytes")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v", fi.Mode())
	}
	if !strings.Contains(noted.text, path) || !strings.Contains(noted.text, "removed when you quit") {
		t.Errorf("note %q", noted.text)
	}

	if cmd := m.openMedia(panes.OpenMediaMsg{What: "x", Name: "run", MimeType: "application/x-sh", Data: []byte("rm -rf /")}); cmd != nil {
		t.Fatal("a shell script was handed to the opener")
	}
	if !strings.Contains(m.note, `not "application/x-sh"; w writes it`) {
		t.Errorf("note %q", m.note)
	}

	m.Close()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf("the directory is still there after Close: %v", err)
	}
}
