//go:build !linux

package mcp

// processState is unknown where there is no /proc: a stopped server is
// then noticed only by its silence.
func processState(pid int) byte { return 0 }
