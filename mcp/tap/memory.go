package tap

import (
	"os"
	"runtime/debug"
)

// Lean makes the running process a lean tap, for `mcpscope tap`, which is
// a long-running process in every client's tree: its garbage collector
// keeps the heap within half its live size (GOGC=50) unless GOGC is set,
// as the recorder's garbage is short-lived.
func Lean() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
