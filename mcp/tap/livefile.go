package tap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// liveSuffix names a running tap's live file, next to its session file:
// the tap's Info, held locked (flock; an unshared handle on Windows) for as
// long as the tap's process runs. The lock, not a socket or a pid that the
// system may give to another process, is what makes a capture live: the
// system drops it the moment the process ends, however it ends.
const liveSuffix = ".live"

// liveFile is a running tap's hold on its live file.
type liveFile struct {
	path string
	f    *os.File
}

// holdLive writes info to dir/ID.live and keeps it locked. The file is
// written and locked under a temporary name first, so that a viewer never
// sees it unlocked while the tap runs.
func holdLive(dir string, info *Info) (*liveFile, error) {
	b, err := json.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("tap: %w", err)
	}
	path := filepath.Join(dir, info.ID+liveSuffix)
	tmp := filepath.Join(dir, "."+info.ID+liveSuffix+".tmp")
	f, err := openLocked(tmp)
	if err != nil {
		return nil, fmt.Errorf("tap: live file: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("tap: live file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("tap: live file: %w", err)
	}
	return &liveFile{path: path, f: f}, nil
}

// release removes the live file and lets go of it: the tap has ended.
func (l *liveFile) release() {
	if l == nil {
		return
	}
	// Removed first: a viewer that finds it unlocked takes it for a tap
	// that died, which it then is not far from being.
	_ = os.Remove(l.path)
	_ = l.f.Close()
}

// readLive reads a live file and reports whether its tap still runs.
func readLive(path string) (Info, bool, error) {
	var info Info
	b, err := os.ReadFile(path)
	if err != nil {
		return info, false, fmt.Errorf("tap: %w", err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, false, fmt.Errorf("tap: %s: %w", path, err)
	}
	running, err := lockHeld(path)
	if err != nil {
		// A file system without locks: the pid is the best there is.
		running = alive(info.PID)
	}
	return info, running, nil
}

// livePath is the live file of a session file.
func livePath(sessionFile string) string {
	return strings.TrimSuffix(sessionFile, ".jsonl") + liveSuffix
}

// Running reports whether the tap that writes the listed capture still
// runs (its live file is held).
func (l Listed) Running() bool {
	if l.File == "" {
		return false
	}
	_, running, err := readLive(livePath(l.File))
	return err == nil && running
}
