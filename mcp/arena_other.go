//go:build !unix

package mcp

// arenaAlloc gives a FrameStore chunk from the Go heap where anonymous
// mappings are not available through syscall.
func arenaAlloc(n int) []byte { return make([]byte, n) }
