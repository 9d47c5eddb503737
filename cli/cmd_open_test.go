package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that is not a session file is a plain error before the terminal
// is taken.
func TestOpenRejectsOtherFilesBeforeTheUI(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err, code := runCLI(t, "open", bad)
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "not an mcpscope session file") {
		t.Errorf("exit %d: %v", code, err)
	}
	if _, _, code := runCLI(t, "open", "--client-profile", "nobody", demoRecording); code != exitUsage {
		t.Errorf("an unknown profile: exit %d", code)
	}
}
