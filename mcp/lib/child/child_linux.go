//go:build linux

package child

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// The kernel sends the parent-death signal when the thread that forked
// the child ends, not the process (prctl(2); golang/go#27505). Go ends a
// thread when a goroutine locked to it returns without unlocking (the
// tap's recorder does so), and any goroutine may have forked on that
// thread before. So every child is forked by one goroutine locked to its
// thread for the life of the process: that thread ends only with it.
type request struct {
	cmd     *exec.Cmd
	started func(pid int) // run on the spawning thread as soon as the child exists
	done    chan error
}

var (
	requests = make(chan request)
	spawner  sync.Once
)

// start starts cmd on the spawning thread and runs started (if not nil)
// there as soon as it has.
func start(cmd *exec.Cmd, started func(pid int)) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	spawner.Do(func() { go spawn() })
	r := request{cmd: cmd, started: started, done: make(chan error, 1)}
	requests <- r
	return <-r.done
}

func spawn() {
	runtime.LockOSThread() // never unlocked: see request
	for r := range requests {
		err := r.cmd.Start()
		if err == nil && r.started != nil {
			r.started(r.cmd.Process.Pid)
		}
		r.done <- err
	}
}
