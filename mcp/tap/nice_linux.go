//go:build linux

package tap

import (
	"runtime"
	"syscall"
)

// lowerPriority runs the calling goroutine on a thread of its own at the
// lowest CPU priority (Linux nice is per thread). The recorder runs so:
// when the client, the server and the tap's copy compete for the CPU in a
// flood, the copy wins and the record catches up once the flood is over.
func lowerPriority() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
}
