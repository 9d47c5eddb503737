//go:build linux

package tap

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// lowerPriority runs the calling goroutine on a thread of its own that
// gets only CPU time nothing else wants. The recorder runs so: when the
// client, the server and the tap's copy compete for the CPU in a flood,
// the copy wins and the record catches up once the flood is over.
//
// The thread is SCHED_IDLE (Linux 2.6.23+; no privilege needed): unlike
// the lowest nice level, it is preempted at once by any other task, and a
// CPU running only it counts as idle when the kernel places a task that
// wakes up, so the server or the client is not queued behind it. Nice 19
// is the fallback (priority is per thread on Linux).
func lowerPriority() {
	runtime.LockOSThread()
	tid := syscall.Gettid()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
	const schedIdle = 5 // SCHED_IDLE in <linux/sched.h>
	var param struct{ priority int32 }
	_, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle, uintptr(unsafe.Pointer(&param)))
}

// serverPipeSize is what the server's stdout pipe is widened to: a
// server in a flood can write this far ahead while the tap's copy waits
// for a CPU, instead of stopping at the 64 KiB a pipe has by default.
const serverPipeSize = 1 << 20

// widenPipe sets a pipe's capacity (F_SETPIPE_SZ); a pipe that cannot
// grow (the user's pipe-memory limit) keeps its size.
func widenPipe(f *os.File, size int) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		const setPipeSize = 1031 // F_SETPIPE_SZ in <linux/fcntl.h>
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, setPipeSize, uintptr(size))
	})
}
