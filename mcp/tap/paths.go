package tap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// StateDir is where tapped conversations are recorded:
// $XDG_STATE_HOME/mcpscope/taps, or ~/.local/state/mcpscope/taps.
func StateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("tap: no place for session files (set XDG_STATE_HOME): %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "mcpscope", "taps"), nil
}

// HubDir is the directory of the live taps' sockets: $XDG_RUNTIME_DIR/mcpscope,
// or mcpscope-<uid> in the temporary directory. It is created 0700 and must
// belong to the user: a socket there is only for the user to open.
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
