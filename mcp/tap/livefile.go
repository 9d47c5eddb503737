package tap

import (
	"bytes"
	"encoding/json"
	"errors"
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
	// size is the file's length: its JSON and the room after it.
	size int
}

// liveRoom is the room a live file keeps after its JSON (spaces, which a
// JSON reader skips): a tap whose capture fails on a full disk writes why
// into blocks the file already has (markCut), where a new file could not
// be written.
const liveRoom = 1024

// cutSuffix names a capture's cut mark, next to its session file: the
// tap's Info with CaptureError, kept after the tap ended (the live file,
// renamed).
const cutSuffix = ".cut"

// cutPath is the cut mark of a session file.
func cutPath(sessionFile string) string {
	return strings.TrimSuffix(sessionFile, ".jsonl") + cutSuffix
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
	b = append(append(b, '\n'), bytes.Repeat([]byte(" "), liveRoom)...)
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("tap: live file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("tap: live file: %w", err)
	}
	return &liveFile{path: path, f: f, size: len(b)}, nil
}

// markCut writes info (with its CaptureError) over the live file, in the
// room it has: viewers and `taps --list` see the capture is cut while
// the tap still runs.
func (l *liveFile) markCut(info *Info) error {
	if l == nil {
		return errors.New("tap: no live file")
	}
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	b = append(b, '\n')
	if len(b) < l.size {
		b = append(b, bytes.Repeat([]byte(" "), l.size-len(b))...)
	}
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("tap: live file: %w", err)
	}
	l.size = len(b)
	return nil
}

// keepAsCut ends the hold like release, but keeps the file, marked by
// markCut, as the capture's cut mark: after the tap has ended, the
// capture still says why it stops short. A rename needs no room on a
// full disk.
func (l *liveFile) keepAsCut(sessionFile string) error {
	if l == nil {
		return errors.New("tap: no live file")
	}
	_ = l.f.Close()
	if err := os.Rename(l.path, cutPath(sessionFile)); err != nil {
		_ = os.Remove(l.path)
		return fmt.Errorf("tap: %w", err)
	}
	return nil
}

// writeCut writes a capture's cut mark afresh (a tap without a live
// file); on a full disk it may fail too, and the capture's last line,
// cut mid-way, is then the only mark (endedCut).
func writeCut(sessionFile string, info *Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	if err := os.WriteFile(cutPath(sessionFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	return nil
}

// endedCut says why an ended capture is incomplete ("" when it is
// whole): its cut mark's reason, or that it ends mid-line (a tap killed
// while writing, or one that could not leave a mark).
func endedCut(sessionFile string) string {
	if b, err := os.ReadFile(cutPath(sessionFile)); err == nil {
		var info Info
		if json.Unmarshal(b, &info) == nil && info.CaptureError != "" {
			return info.CaptureError
		}
	}
	f, err := os.Open(sessionFile)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return ""
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] == '\n' {
		return ""
	}
	return "the capture ends mid-line: its tap stopped while writing it"
}

// CutReason says why the listed capture is incomplete, read afresh (a
// running tap's capture may fail at any time); "" while it is whole.
func (l Listed) CutReason() string {
	if l.File == "" {
		return ""
	}
	if info, running, err := readLive(livePath(l.File)); err == nil && running {
		return info.CaptureError
	}
	return endedCut(l.File)
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
