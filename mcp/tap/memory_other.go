//go:build !linux

package tap

import (
	"os"
	"runtime/debug"
)

// Lean makes the running process a lean tap: its garbage collector keeps
// the heap within half its live size unless GOGC is set (see the Linux
// version, which also gives back the pages starting touched).
func Lean() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
