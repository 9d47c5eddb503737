//go:build unix

package mcp

import "syscall"

// arenaAlloc maps n bytes of anonymous memory outside the Go heap for a
// FrameStore chunk: the collector neither scans it nor counts it toward
// its next goal, and untouched pages cost nothing. It is never unmapped
// (the frames rebuilt from it may be held anywhere). If the mapping fails,
// the chunk comes from the heap.
func arenaAlloc(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}
