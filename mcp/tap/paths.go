package tap

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// StateDir is where taps record their conversations and say that they
// are running: ~/.local/state/mcpscope/taps, from the home directory alone.
// A client chooses the environment of the servers it starts, and many
// drop XDG_* (the TypeScript SDK passes only HOME, LOGNAME, PATH, SHELL,
// TERM and USER; Codex eleven variables), so a directory taken from
// XDG_STATE_HOME would differ between the tap and the viewer in the
// user's terminal. HOME is passed by every client; without it the home
// directory comes from the user database (the user's uid).
func StateDir() (string, error) {
	home, err := homeDir()
	if err != nil {
		return "", fmt.Errorf("tap: no place for session files: %w", err)
	}
	return filepath.Join(home, ".local", "state", "mcpscope", "taps"), nil
}

// homeDir is $HOME (%USERPROFILE% on Windows) when it is an absolute path,
// else the home directory the user database gives the current uid.
func homeDir() (string, error) {
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		return h, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("no home directory (HOME is not set and the user database does not say): %w", err)
	}
	if !filepath.IsAbs(u.HomeDir) {
		return "", errors.New("no home directory (HOME is not set and the user database does not say)")
	}
	return u.HomeDir, nil
}

// captureDirs are the directories the viewer lists: StateDir, and
// $XDG_STATE_HOME/mcpscope/taps, where mcpscope recorded before it chose
// one place, when that variable names another directory.
func captureDirs() []string {
	var dirs []string
	if d, err := StateDir(); err == nil {
		dirs = append(dirs, d)
	}
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		legacy := filepath.Join(x, "mcpscope", "taps")
		if len(dirs) == 0 || !sameDir(legacy, dirs[0]) {
			dirs = append(dirs, legacy)
		}
	}
	return dirs
}

// sameDir reports whether a and b name one directory (also through a
// symbolic link).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// HubDir is the directory of the live taps' sockets: $XDG_RUNTIME_DIR/mcpscope,
// or mcpscope-<uid> in the temporary directory. It is created 0700 and must
// belong to the user: a socket there is only for the user to open. The
// viewer does not look for sockets here: each tap names its socket in its
// live file in StateDir, so a tap and a viewer that see different
// variables still meet.
func HubDir() (string, error) {
	dir := ""
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "mcpscope")
	} else {
		dir = filepath.Join(os.TempDir(), "mcpscope-"+strconv.Itoa(os.Getuid()))
	}
	return dir, nil
}

// ensurePrivateDir creates dir 0700 (parents as needed) and checks that it
// is a directory of ours that nobody else can enter.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("tap: %s is not a directory", dir)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("tap: %s: %w", dir, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("tap: %s is open to other users and cannot be made private: %w", dir, err)
		}
	}
	return nil
}

var errNotOwner = errors.New("belongs to another user")
