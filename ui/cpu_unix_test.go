//go:build unix

package ui

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system):
// on two shared cores the time to screen measures the machine's load as
// much as the work, and the CPU time much less so.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
