//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tap install and uninstall edit the file in place: another user's file
// stays theirs (root changes it for them), its mode stays, and a hard
// link to it still shares its text.
func TestTapInstallKeepsOwnerModeAndHardLinks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "claude.json")
	link := filepath.Join(dir, "hard-link.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(file, link); err != nil {
		t.Fatal(err)
	}
	const uid, gid = 4242, 4343
	owned := os.Geteuid() == 0
	if owned {
		if err := os.Chown(file, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	for _, verb := range []string{"install", "uninstall"} {
		if out, err, code := runCLI(t, "tap", verb, "--config", file, "--all"); code != exitOK {
			t.Fatalf("%s: exit %d %v\n%s", verb, code, err, out)
		}
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		li, err := os.Stat(link)
		if err != nil || !os.SameFile(fi, li) {
			t.Errorf("%s split the hard link", verb)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, was 0640", verb, fi.Mode())
		}
		if st := fi.Sys().(*syscall.Stat_t); owned && (st.Uid != uid || st.Gid != gid) {
			t.Errorf("%s: owner %d:%d, was %d:%d", verb, st.Uid, st.Gid, uid, gid)
		}
	}
	if !owned {
		t.Skip("the owner is checked as root only (chown to another user); mode and link were")
	}
}
