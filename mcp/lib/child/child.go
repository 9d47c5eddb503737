// Package child starts a child process that does not outlive this one.
//
// A server mcpscope starts (the TUI's, call's, a tap's) must end when
// mcpscope ends, however it ends: closing the server's stdin is the
// orderly way, and a server that does not read it (or one still busy)
// would run on, orphaned, after a SIGKILL. So would what the server
// started: `sh -c` wrappers, npx's node, a child that ignores SIGTERM.
//
// On Linux the kernel sends the child SIGTERM when its parent dies
// (PR_SET_PDEATHSIG). On every Unix (Linux and macOS), a child that leads
// a process group of its own (SysProcAttr.Setpgid) has that whole group
// ended with mcpscope, by a guard process (guard_unix.go): SIGTERM, then
// SIGKILL half a second later. A descendant that leaves the group (setsid: a
// daemon) is not followed. On Windows the closed stdin is all there is.
package child

import (
	"os/exec"
	"sync"
)

// Start starts cmd as cmd.Start does, asking the kernel, where it can, to
// send the child SIGTERM when this process dies. When cmd leads a process
// group of its own (SysProcAttr.Setpgid with Pgid 0), the whole group is
// ended when this process ends: call Ended once the group is gone.
func Start(cmd *exec.Cmd) error {
	if err := start(cmd); err != nil {
		return err
	}
	if leadsGroup(cmd) {
		// The guard is started (if none runs) and told of the group after
		// the child, by another goroutine: a one-shot call does not wait
		// for a shell's start, and the child has its parent-death signal
		// meanwhile.
		pid := cmd.Process.Pid
		later(func() { watchGroup(pid) })
	}
	return nil
}

// Ended says cmd's process group is gone (its leader reaped, what it left
// killed): nothing is to be ended for it any more, and its number may be
// another group's soon.
func Ended(cmd *exec.Cmd) {
	if cmd.Process != nil && leadsGroup(cmd) {
		pid := cmd.Process.Pid
		later(func() { forgetGroup(pid) })
	}
}

// pending is the guard's work not yet done, done in order by one goroutine
// at a time: a group is never forgotten before it is watched.
var pending struct {
	mu   sync.Mutex
	ops  []func()
	busy bool
	idle sync.Cond // busy became false
}

func later(op func()) {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	pending.ops = append(pending.ops, op)
	if !pending.busy {
		pending.busy = true
		go doPending()
	}
}

func doPending() {
	for {
		pending.mu.Lock()
		if len(pending.ops) == 0 {
			pending.busy = false
			if pending.idle.L != nil {
				pending.idle.Broadcast()
			}
			pending.mu.Unlock()
			return
		}
		op := pending.ops[0]
		pending.ops = pending.ops[1:]
		pending.mu.Unlock()
		op()
	}
}

// settle waits until the guard has done the work asked of it so far.
func settle() {
	pending.mu.Lock()
	defer pending.mu.Unlock()
	if pending.idle.L == nil {
		pending.idle.L = &pending.mu
	}
	for pending.busy {
		pending.idle.Wait()
	}
}
