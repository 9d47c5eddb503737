//go:build linux

package mcp

import (
	"syscall"
	"unsafe"
)

// mappedLine is a long line read into anonymous memory mapped outside the
// Go heap: room for the longest line allowed is reserved (address space,
// not memory), and only the pages written to cost anything, so the line
// grows without ever being copied to a bigger buffer.
type mappedLine struct {
	region []byte // the whole mapping, max bytes
	n      int    // bytes written
}

// newMappedLine reserves room for a line of up to max bytes; nil when the
// mapping fails (the line is then read into heap chunks).
func newMappedLine(max int) *mappedLine {
	b, err := syscall.Mmap(-1, 0, max, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return &mappedLine{region: b}
}

// write appends p; the caller keeps the total within max.
func (m *mappedLine) write(p []byte) { m.n += copy(m.region[m.n:], p) }

// kept is the line where it was read, for good: the mapping's untouched
// pages past it are given back and it is never unmapped, since the line's
// bytes may be held anywhere for as long as the program runs.
func (m *mappedLine) kept() []byte {
	page := syscall.Getpagesize()
	if end := (m.n + page - 1) / page * page; end < len(m.region) {
		_, _, _ = syscall.Syscall(syscall.SYS_MUNMAP, uintptr(unsafe.Pointer(&m.region[end])), uintptr(len(m.region)-end), 0)
	}
	return m.region[:m.n:m.n]
}

// copied is the line in a heap buffer of exactly its size. Each piece of
// the mapping is given back as soon as it is copied, so the line is held
// about once, never twice, on its way to the heap; then the mapping goes.
func (m *mappedLine) copied() []byte {
	const piece = 1 << 20
	out := make([]byte, m.n)
	for at := 0; at < m.n; at += piece {
		end := min(at+piece, m.n)
		copy(out[at:end], m.region[at:end])
		_ = syscall.Madvise(m.region[at:end], syscall.MADV_DONTNEED)
	}
	_ = syscall.Munmap(m.region)
	m.region = nil
	return out
}
