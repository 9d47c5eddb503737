package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// flowCopyInTmux: the suite's tmux runs with its default set-clipboard
// (external), which swallows OSC 52, so c on a frame copies to the system
// clipboard (here an xclip that keeps what it is given), and the status
// line says so.
func flowCopyInTmux(t *testing.T, a *accept) {
	dir := t.TempDir()
	clip := filepath.Join(dir, "clip.txt")
	script := "#!/bin/sh\ncat > '" + clip + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := a.startWith(t, 120, 35, []string{"PATH=" + dir + ":" + os.Getenv("PATH"), "WAYLAND_DISPLAY="})
	s.ready()
	s.keys("1")
	s.see("Log · ")
	s.keys("g", "j", "j", "Enter") // the initialize request
	s.see("─ Frame #")
	s.keys("c")
	s.see("to the system clipboard (xclip)")
	var got []byte
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got, _ = os.ReadFile(clip); strings.Contains(string(got), `"initialize"`) {
			return
		}
		time.Sleep(40 * time.Millisecond)
	}
	t.Errorf("the clipboard tool got %q, not the initialize request", got)
}
