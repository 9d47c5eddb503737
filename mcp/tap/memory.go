package tap

import (
	"os"
	"runtime/debug"

	"github.com/mcpscope/mcpscope/mcp/lib/resident"
)

// Lean makes the running process a lean tap, for `mcpscope tap`, which is
// the whole mcpscope binary but needs little of it:
//
//   - It gives back the pages of the binary's code and read-only data
//     that starting touched (every package's initialisation, in a 28 MB
//     binary, which the kernel maps 64 KiB at a time): about 6 MiB of the
//     tap's resident set on Linux (see resident.ReleaseExecutablePages).
//     They stay in the page cache; the pages the tap goes on using come
//     back as it touches them.
//   - Its garbage collector keeps the heap within half its live size
//     (GOGC=50) unless GOGC is set: the recorder's garbage is short-lived,
//     and a tap is a long-running process in every client's tree.
func Lean() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	resident.ReleaseExecutablePages()
}
