//go:build linux

package tap

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// Lean makes the running process a lean tap, for `mcpscope tap`, which is
// the whole mcpscope binary but needs little of it:
//
//   - It gives back the pages of the binary's code and read-only data
//     that starting touched (every package's initialisation, in a 28 MB
//     binary, which the kernel maps 64 KiB at a time): about 6 MiB of the
//     tap's resident set. They stay in the page cache; the pages the tap
//     goes on using come back as it touches them. Only read-only mappings
//     of the executable are released, which the kernel refills from the
//     file, so this changes what is resident, never what is read.
//   - Its garbage collector keeps the heap within half its live size
//     (GOGC=50) unless GOGC is set: the recorder's garbage is short-lived,
//     and a tap is a long-running process in every client's tree.
func Lean() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-00ca2000 r-xp 00000000 fe:00 9995757  /path/to/mcpscope
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || !strings.HasPrefix(fields[1], "r") || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
