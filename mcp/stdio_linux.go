//go:build linux

package mcp

import (
	"bytes"
	"os"
	"strconv"
)

// processState is the one-letter state of a process from /proc/PID/stat
// ('R', 'S', 'T' stopped, 't' stopped by a debugger, 'Z', ...), or 0 when
// it cannot be read.
func processState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so
	// the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}
