//go:build linux

package resident

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseExecutablePages drops this process's mappings of the pages of its
// own executable that are mapped read-only (code, read-only data, the
// function tables): MADV_DONTNEED on a private file mapping that was never
// written only unmaps the pages, which stay in the page cache, and a later
// touch maps them again from there. Writable mappings (initialised data)
// are never released: there the call would throw away what was written.
func releaseExecutablePages() {
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
		line := sc.Text()
		fields := strings.Fields(line)
		slash := strings.IndexByte(line, '/')
		if len(fields) < 6 || slash < 0 || line[slash:] != exe || !strings.HasPrefix(fields[1], "r") || strings.Contains(fields[1], "w") {
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
